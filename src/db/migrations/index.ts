/**
 * The ordered list of migrations. Each capability adds its own file and one line here;
 * names sort in the order they must run (areas
 * own number ranges: 0100 conversations, 0200 participants, 0300 settings/SIP, 0400 breakout/avatars/jobs,
 * 0500 operator tools, 0600 chat and signaling; unordered application is allowed so areas can land in any order). Never edit a migration that has shipped: add one.
 */
import type { ParleyMigration } from './helpers.js';
import { foundation } from './0001-foundation.js';
import { userLastLogin } from './0002-user-last-login.js';
import { conversations } from './0100-conversations.js';
import { oneToOnePair } from './0101-one-to-one-pair.js';
import { userStatus } from './0200-user-status.js';
import { mailOutbox } from './0201-mail-outbox.js';
import { teams } from './0202-teams.js';
import { clientSessions } from './0203-client-sessions.js';
import { sipDialOut } from './0300-sip-dialout.js';
import { jobs } from './0400-jobs.js';
import { roomAvatars } from './0401-room-avatars.js';
import { jobHistory } from './0402-job-history.js';
import { loginSessions } from './0500-login-sessions.js';
import { chatMessages } from './0600-chat.js';
import { signalingMessages } from './0600-signaling-messages.js';
import { loginFlows } from './0700-login-flows.js';
import { userAvatars } from './0701-user-avatars.js';
import { notifications } from './0702-notifications.js';
import { chatReactions } from './0703-chat-reactions.js';
import { polls } from './0704-polls.js';
import { recordingConsent } from './0705-recording-consent.js';
import { chatUnreadCounters } from './0706-chat-unread-counters.js';
import { readCacheNotify } from './0707-read-cache-notify.js';
import { chatExpiringIndex } from './0710-chat-expiring-index.js';
import { recordRevisions } from './0711-record-revisions.js';
import { changeFeed } from './0712-change-feed.js';
import { bruteForceFeed } from './0713-brute-force-feed.js';
import { chatSharedItems } from './0714-chat-shared-items.js';
import { chatReminders } from './0715-chat-reminders.js';
import { attendeeNotificationLevel } from './0716-attendee-notification-level.js';
import { attendeeConversationMarks } from './0717-attendee-conversation-marks.js';
import { noteToSelf } from './0718-note-to-self.js';
import { pinnedMessages } from './0719-pinned-messages.js';
import { files } from './0800-files.js';
import { fileUploads } from './0801-file-uploads.js';
import { federationTrustedServers } from './0900-federation-trusted-servers.js';
import { federationInvitations } from './0901-federation-invitations.js';
import { federatedRooms } from './0910-federated-rooms.js';
import { federationSync } from './0920-federation-sync.js';
import { uploadAssembly } from './0950-upload-assembly.js';
import { scheduledMessages } from './0720-scheduled-messages.js';
import { cookieSessionLogin } from './0721-cookie-session-login.js';
import { chatDeletedByName } from './0750-chat-deleted-by-name.js';
import { formerOneToOneReadOnly } from './0760-former-one-to-one-read-only.js';
import { outbox } from './0820-outbox.js';
import { push } from './0821-push.js';
import { fileShares } from './0830-file-shares.js';
import { outboxOrder } from './0880-outbox-order.js';
import { fileFavorites } from './0881-file-favorites.js';
export const migrations: ParleyMigration[] = [
  foundation,
  userLastLogin,
  conversations,
  oneToOnePair,
  userStatus,
  mailOutbox,
  teams,
  clientSessions,
  sipDialOut,
  jobs,
  roomAvatars,
  jobHistory,
  loginSessions,
  chatMessages,
  signalingMessages,
  loginFlows,
  userAvatars,
  notifications,
  chatReactions,
  polls,
  recordingConsent,
  chatUnreadCounters,
  readCacheNotify,
  chatExpiringIndex,
  recordRevisions,
  changeFeed,
  bruteForceFeed,
  chatSharedItems,
  chatReminders,
  attendeeNotificationLevel,
  attendeeConversationMarks,
  noteToSelf,
  pinnedMessages,
  scheduledMessages,
  cookieSessionLogin,
  chatDeletedByName,
  formerOneToOneReadOnly,
  outbox,
  push,
  files,
  fileUploads,
  fileShares,
  outboxOrder,
  fileFavorites,
  federationTrustedServers,
  federationInvitations,
  federatedRooms,
  federationSync,
  uploadAssembly,
];
