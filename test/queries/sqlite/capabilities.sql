-- capabilities [sqlite]

-- warm

-- after a write
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
