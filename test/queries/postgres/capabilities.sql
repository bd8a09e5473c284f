-- capabilities [postgres]

-- warm
select 1;

-- after a write
select 1;
