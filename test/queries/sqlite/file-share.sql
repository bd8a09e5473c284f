-- file-share [sqlite]

-- warm
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
select * from "files" where "owner" = ? and "path" = ?;
select "r".*, "a"."id" as "a_id", "a"."room_id" as "a_room_id", "a"."actor_type" as "a_actor_type", "a"."actor_id" as "a_actor_id", "a"."display_name" as "a_display_name", "a"."pin" as "a_pin", "a"."participant_type" as "a_participant_type", "a"."favorite" as "a_favorite", "a"."notification_level" as "a_notification_level", "a"."notification_calls" as "a_notification_calls", "a"."last_joined_call" as "a_last_joined_call", "a"."last_read_message" as "a_last_read_message", "a"."last_mention_message" as "a_last_mention_message", "a"."last_mention_direct" as "a_last_mention_direct", "a"."read_privacy" as "a_read_privacy", "a"."permissions" as "a_permissions", "a"."access_token" as "a_access_token", "a"."invited_cloud_id" as "a_invited_cloud_id", "a"."phone_number" as "a_phone_number", "a"."call_id" as "a_call_id", "a"."dialout_request" as "a_dialout_request", "a"."dialout_requested_at" as "a_dialout_requested_at", "a"."last_attendee_activity" as "a_last_attendee_activity", "a"."created_at" as "a_created_at", "a"."read_count" as "a_read_count", "a"."archived" as "a_archived", "a"."important" as "a_important", "a"."sensitive" as "a_sensitive", "a"."rev" as "a_rev", "a"."hidden_pinned_id" as "a_hidden_pinned_id", "a"."has_scheduled_messages" as "a_has_scheduled_messages" from "rooms" as "r" left join "attendees" as "a" on "a"."room_id" = "r"."id" and "a"."actor_type" = ? and "a"."actor_id" = ? where "r"."token" = ?;
select * from "attendees" where "room_id" = ? and ("actor_type" = ? and "actor_id" in (?));
select * from "users" where "id" in (?);
begin immediate;
insert into "file_shares" ("file_id", "owner", "room_id", "token", "created_at", "expires_at", "message_id") values (?, ?, ?, ?, ?, ?, ?) returning "id";
insert into "chat_messages" ("actor_display_name", "message", "system_message", "message_parameters", "reference_id", "parent_id", "expires_at", "silent", "can_mention_all", "last_edit_actor_type", "last_edit_actor_id", "last_edit_actor_display_name", "last_edit_at", "deleted_by_type", "deleted_by_id", "deleted_at", "reactions", "room_id", "actor_type", "actor_id", "message_type", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *;
update "rooms" set "last_message" = case when last_message < ? then ? else last_message end, "chat_count" = chat_count + 1 where "id" = ? returning "id";
insert into "chat_shared_items" ("message_id", "room_id", "object_type") values (?, ?, ?);
update "attendees" set "last_read_message" = ?, "last_attendee_activity" = ?, "read_count" = (select r.chat_count from rooms r where r.id = attendees.room_id) where "id" = ? and "last_read_message" < ?;
update "attendees" set "last_mention_message" = ?, "last_mention_direct" = ? where "room_id" = ? and "id" in (?);
update "file_shares" set "message_id" = ? where "id" = ?;
commit;
select "actor_id" from "attendees" where "room_id" = ? and "actor_type" = ?;
select * from "file_share_targets" where "user_id" = ? and "share_id" in (?);
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
select * from "files" where "owner" = ? and "path" = ?;
select * from "files" where "owner" = ? and "path" = ?;
select * from "files" where "owner" = ? and "parent" = ? order by "name";
select "path" from "file_share_targets" where "user_id" = ? and "parent" = ?;
insert into "file_share_targets" ("share_id", "user_id", "path", "parent") values (?, ?, ?, ?) on conflict do nothing returning "share_id";
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
select * from "attendees" where "room_id" in (?) and "actor_type" = ? and "actor_id" in (?);
select "a"."actor_id" from "attendees" as "a" where "a"."room_id" = ? and "a"."notification_level" in (?, ?) and "a"."actor_type" = ? and not exists (select "s"."id" from "sessions" as "s" where "s"."attendee_id" = "a"."id" and "s"."last_ping" >= ?);
insert into "notifications" ("user_id", "app", "subject", "object_type", "object_id", "room_id", "message_id", "subject_params", "message", "message_params", "missed", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("user_id", "subject", "object_type", "object_id", "message_id") do update set "created_at" = "excluded"."created_at", "subject_params" = "excluded"."subject_params", "message" = "excluded"."message", "message_params" = "excluded"."message_params", "missed" = ? returning (exists (select 1 from push_devices d where d.user_id = notifications.user_id) or exists (select 1 from webpush_subscriptions s where s.user_id = notifications.user_id and s.activated = 1)) as "owes_push";
select * from "file_shares" where "id" = ?;

-- after a write
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
select * from "files" where "owner" = ? and "path" = ?;
select "r".*, "a"."id" as "a_id", "a"."room_id" as "a_room_id", "a"."actor_type" as "a_actor_type", "a"."actor_id" as "a_actor_id", "a"."display_name" as "a_display_name", "a"."pin" as "a_pin", "a"."participant_type" as "a_participant_type", "a"."favorite" as "a_favorite", "a"."notification_level" as "a_notification_level", "a"."notification_calls" as "a_notification_calls", "a"."last_joined_call" as "a_last_joined_call", "a"."last_read_message" as "a_last_read_message", "a"."last_mention_message" as "a_last_mention_message", "a"."last_mention_direct" as "a_last_mention_direct", "a"."read_privacy" as "a_read_privacy", "a"."permissions" as "a_permissions", "a"."access_token" as "a_access_token", "a"."invited_cloud_id" as "a_invited_cloud_id", "a"."phone_number" as "a_phone_number", "a"."call_id" as "a_call_id", "a"."dialout_request" as "a_dialout_request", "a"."dialout_requested_at" as "a_dialout_requested_at", "a"."last_attendee_activity" as "a_last_attendee_activity", "a"."created_at" as "a_created_at", "a"."read_count" as "a_read_count", "a"."archived" as "a_archived", "a"."important" as "a_important", "a"."sensitive" as "a_sensitive", "a"."rev" as "a_rev", "a"."hidden_pinned_id" as "a_hidden_pinned_id", "a"."has_scheduled_messages" as "a_has_scheduled_messages" from "rooms" as "r" left join "attendees" as "a" on "a"."room_id" = "r"."id" and "a"."actor_type" = ? and "a"."actor_id" = ? where "r"."token" = ?;
select * from "attendees" where "room_id" = ? and ("actor_type" = ? and "actor_id" in (?));
select * from "users" where "id" in (?);
begin immediate;
insert into "file_shares" ("file_id", "owner", "room_id", "token", "created_at", "expires_at", "message_id") values (?, ?, ?, ?, ?, ?, ?) returning "id";
insert into "chat_messages" ("actor_display_name", "message", "system_message", "message_parameters", "reference_id", "parent_id", "expires_at", "silent", "can_mention_all", "last_edit_actor_type", "last_edit_actor_id", "last_edit_actor_display_name", "last_edit_at", "deleted_by_type", "deleted_by_id", "deleted_at", "reactions", "room_id", "actor_type", "actor_id", "message_type", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *;
update "rooms" set "last_message" = case when last_message < ? then ? else last_message end, "chat_count" = chat_count + 1 where "id" = ? returning "id";
insert into "chat_shared_items" ("message_id", "room_id", "object_type") values (?, ?, ?);
update "attendees" set "last_read_message" = ?, "last_attendee_activity" = ?, "read_count" = (select r.chat_count from rooms r where r.id = attendees.room_id) where "id" = ? and "last_read_message" < ?;
update "attendees" set "last_mention_message" = ?, "last_mention_direct" = ? where "room_id" = ? and "id" in (?);
update "file_shares" set "message_id" = ? where "id" = ?;
commit;
select "actor_id" from "attendees" where "room_id" = ? and "actor_type" = ?;
select * from "file_share_targets" where "user_id" = ? and "share_id" in (?);
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
select * from "files" where "owner" = ? and "path" = ?;
select * from "files" where "owner" = ? and "path" = ?;
select * from "files" where "owner" = ? and "parent" = ? order by "name";
select "path" from "file_share_targets" where "user_id" = ? and "parent" = ?;
insert into "file_share_targets" ("share_id", "user_id", "path", "parent") values (?, ?, ?, ?) on conflict do nothing returning "share_id";
SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?;
select * from "attendees" where "room_id" in (?) and "actor_type" = ? and "actor_id" in (?);
select "a"."actor_id" from "attendees" as "a" where "a"."room_id" = ? and "a"."notification_level" in (?, ?) and "a"."actor_type" = ? and not exists (select "s"."id" from "sessions" as "s" where "s"."attendee_id" = "a"."id" and "s"."last_ping" >= ?);
insert into "notifications" ("user_id", "app", "subject", "object_type", "object_id", "room_id", "message_id", "subject_params", "message", "message_params", "missed", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("user_id", "subject", "object_type", "object_id", "message_id") do update set "created_at" = "excluded"."created_at", "subject_params" = "excluded"."subject_params", "message" = "excluded"."message", "message_params" = "excluded"."message_params", "missed" = ? returning (exists (select 1 from push_devices d where d.user_id = notifications.user_id) or exists (select 1 from webpush_subscriptions s where s.user_id = notifications.user_id and s.activated = 1)) as "owes_push";
select * from "file_shares" where "id" = ?;
