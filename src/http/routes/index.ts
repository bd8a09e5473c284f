/**
 * Every route module, registered in this order. Each capability area adds one line.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.js';
import { appConfigRoutes } from './app-config.js';
import { appPasswordRoutes } from './app-passwords.js';
import { conversationRoutes } from './conversations.js';
import { breakoutRoomRoutes } from './breakout-rooms.js';
import { avatarRoutes } from './avatars.js';
import { conversationSettingsRoutes } from './conversation-settings.js';
import { coreRoutes } from './core.js';
import { userStatusRoutes } from './user-status.js';
import { participantRoutes } from './participants.js';
import { callRoutes } from './calls.js';
import { provisioningConfigRoutes } from './provisioning-config.js';
import { settingsRoutes } from './settings.js';
import { sipRoutes } from './sip.js';
import { signalingRoutes } from './signaling.js';
import { provisioningGroupRoutes } from './provisioning-groups.js';
import { provisioningUserRoutes } from './provisioning-users.js';
import { autocompleteRoutes } from './autocomplete.js';
import { webPageRoutes } from './web-pages.js';
import { conversationLinkPageRoutes } from './conversation-link-page.js';
import { loginFlowRoutes } from './login-flows.js';
import { userAvatarRoutes } from './user-avatars.js';
import { notificationRoutes } from './notifications.js';
import { pushRoutes } from './push.js';
import { metricsRoutes } from './metrics.js';
import { openApiRoutes } from './openapi.js';
import { chatRoutes } from './chat.js';
import { chatReactionRoutes } from './chat-reactions.js';
import { chatShareRoutes } from './chat-shares.js';
import { chatReminderRoutes } from './chat-reminders.js';
import { chatPinRoutes } from './chat-pins.js';
import { chatScheduleRoutes } from './chat-schedule.js';
import { pollRoutes } from './polls.js';
import { setupCheckRoutes } from './setup-checks.js';
import { webdavRoutes } from './files/webdav.js';
import { previewRoutes } from './files/previews.js';
import { fileShareRoutes } from './files/shares.js';
import { publicShareRoutes } from './files/public-shares.js';
import { federationOcmRoutes } from './federation-ocm.js';
import { federationInvitationRoutes } from './federation-invitations.js';
import { federationTrustedServerRoutes } from './federation-trusted-servers.js';
import { fileLinkRoutes } from './files/file-links.js';

export type RouteModule = (app: FastifyInstance, services: Services) => Promise<void>;

export const routeModules: RouteModule[] = [
  coreRoutes,
  appConfigRoutes,
  conversationRoutes,
  breakoutRoomRoutes,
  avatarRoutes,
  conversationSettingsRoutes,
  webPageRoutes,
  conversationLinkPageRoutes,
  loginFlowRoutes,
  userAvatarRoutes,
  notificationRoutes,
  pushRoutes,
  metricsRoutes,
  openApiRoutes,
  userStatusRoutes,
  participantRoutes,
  callRoutes,
  provisioningUserRoutes,
  autocompleteRoutes,
  provisioningGroupRoutes,
  appPasswordRoutes,
  settingsRoutes,
  provisioningConfigRoutes,
  sipRoutes,
  chatRoutes,
  chatReactionRoutes,
  chatShareRoutes,
  chatReminderRoutes,
  chatPinRoutes,
  chatScheduleRoutes,
  pollRoutes,
  signalingRoutes,
  setupCheckRoutes,
  webdavRoutes,
  previewRoutes,
  fileShareRoutes,
  publicShareRoutes,
  federationOcmRoutes,
  federationInvitationRoutes,
  federationTrustedServerRoutes,
  fileLinkRoutes,
];
