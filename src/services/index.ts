/**
 * The service container: one instance of each service over one database. Built by `serve`,
 * by the CLI and by tests; routes and commands receive it and never construct services.
 * Each capability area adds its services here, in createServices' dependency order.
 */
import { LobbyTimers } from './lobby-timers.js';
import type { Db } from '../db/database.js';
import type { Settings } from '../settings.js';
import type { Logger } from '../log.js';
import { EventBus } from '../events/bus.js';
import { subscribeAll } from '../events/subscribers.js';
import { createRepositories, type Repositories } from '../db/repositories/index.js';
import { AppConfigService } from './app-config.js';
import { AuthService } from './auth.js';
import { BruteForceService } from './brute-force.js';
import { CapabilitiesService } from './capabilities.js';
import { ServiceHashService } from './service-hash.js';
import { DirectoryService } from './directory.js';
import { LoginSessionService } from './login-sessions.js';
import { ServerListsService } from './server-lists.js';
import { MetricsService } from './metrics.js';
import { UserStatusService } from './user-status.js';
import { MailService } from './mail.js';
import { TeamsService } from './teams.js';
import { PhoneNumbersService } from './phone-numbers.js';
import { ClientSessionService } from './client-sessions.js';
import { SessionService } from './sessions.js';
import { ParticipantsService } from './participants.js';
import { RoomOperatorService } from './room-operator.js';
import { MembershipSync } from './membership-sync.js';
import { PreferencesService } from './preferences.js';
import { RoomsService } from './rooms.js';
import { BreakoutRoomsService } from './breakout-rooms.js';
import { AvatarService } from './avatars.js';
import { HousekeepingService } from './housekeeping.js';
import { CallService } from './calls.js';
import { RoomSettingsService } from './room-settings.js';
import { ConversationListService } from './conversation-list.js';
import { SipSettingsService } from './sip-settings.js';
import { SipBridgeService } from './sip-bridge.js';
import { SipService } from './sip.js';
import { ProvisioningService } from './provisioning.js';
import { ChatService } from './chat.js';
import { ReceiveReadMarkers } from './receive-read-markers.js';
import { ChatApiService } from './chat-api.js';
import { ChatReactionsService } from './chat-reactions.js';
import { ChatSharesService } from './chat-shares.js';
import { ChatRemindersService } from './chat-reminders.js';
import { ChatPinsService } from './chat-pins.js';
import { ChatScheduleService } from './chat-schedule.js';
import { PollsService } from './polls.js';
import { BreakoutBroadcastService } from './breakout-broadcast.js';
import { ChatMentions } from './chat-mentions.js';
import { ChatSystemMessages } from './chat-system-messages.js';
import { SignalingService } from './signaling.js';
import { SignalingBackendService } from './signaling-backend.js';
import { SignalingNotifier } from './signaling-notifier.js';
import { SignalingChatRelay } from './signaling-chat-relay.js';
import { InternalSignalingService } from './internal-signaling.js';
import { LoginFlowService } from './login-flows.js';
import { NotificationService } from './notifications.js';
import { UserAvatarService } from './user-avatars.js';
import { FilesService } from './files/files.js';
import { LocalBlobStore } from './files/local-storage.js';
import { ChunkedUploadsService } from './files/chunked-uploads.js';
import { PreviewService } from './files/previews.js';
import { CallerSessions } from './caller-sessions.js';
import { ConversationViewService } from './conversation-view.js';

export interface Services {
  db: Db;
  /**
   * The repositories bundle the services were built over: for the job scheduler's own table and
   * for tests that set up rows. Routes never use it (they go through a service).
   */
  repos: Repositories;
  /** "This happened": emitted by the owning service, subscribed in events/subscribers.ts. */
  events: EventBus;
  settings: Settings;
  /** The process logger (src/log.ts), shared with the HTTP server. */
  log: Logger;
  directory: DirectoryService;
  appConfig: AppConfigService;
  bruteForce: BruteForceService;
  auth: AuthService;
  preferences: PreferencesService;
  capabilities: CapabilitiesService;
  /** X-Service-Hash / X-Nextcloud-Talk-Hash for GET /room and GET /room/{token}. */
  serviceHash: ServiceHashService;
  rooms: RoomsService;
  /** The conversation records: batch loads, lazy repairs, then the pure presenter. */
  conversationView: ConversationViewService;
  /** GET /room in JSON with each record reused while the database says it is current. */
  conversationList: ConversationListService;
  breakoutRooms: BreakoutRoomsService;
  avatars: AvatarService;
  /** User and guest avatars at Nextcloud's /index.php/avatar paths. */
  userAvatars: UserAvatarService;
  files: FilesService;
  chunkedUploads: ChunkedUploadsService;
  previews: PreviewService;
  housekeeping: HousekeepingService;
  /** Conversation settings: description, public, read-only, password, permissions, favorites, ... */
  roomSettings: RoomSettingsService;
  loginSessions: LoginSessionService;
  /** Login Flow v2 / v1: how Talk apps obtain an app password. */
  loginFlows: LoginFlowService;
  /** The notifications app: Talk's invitation, mention and call notifications (no push). */
  notifications: NotificationService;
  serverLists: ServerListsService;
  metrics: MetricsService;
  userStatus: UserStatusService;
  mail: MailService;
  teams: TeamsService;
  clientSessions: ClientSessionService;
  sessions: SessionService;
  /** Calls: join, flags, leave, end (api/v4/call), and the call-ending of jobs and session cleanup. */
  calls: CallService;
  participants: ParticipantsService;
  /** The operator's talk:room:* and talk:user:remove commands, over the services above. */
  roomOperator: RoomOperatorService;
  sipSettings: SipSettingsService;
  sipBridge: SipBridgeService;
  sip: SipService;
  /** Users' phone numbers (`parley phone-number:*`): the dial-out caller number. */
  phoneNumbers: PhoneNumbersService;
  provisioning: ProvisioningService;
  chat: ChatService;
  chatApi: ChatApiService;
  chatReactions: ChatReactionsService;
  chatShares: ChatSharesService;
  /** Message reminders (remind-me-later) and the job that turns due ones into notifications. */
  chatReminders: ChatRemindersService;
  chatPins: ChatPinsService;
  chatSchedule: ChatScheduleService;
  polls: PollsService;
  breakoutBroadcast: BreakoutBroadcastService;
  chatMentions: ChatMentions;
  /** Signaling settings and tickets (GET /signaling/settings). */
  signaling: SignalingService;
  /** The backend API an external signaling server calls. */
  signalingBackend: SignalingBackendService;
  /** Tells the external signaling server about room changes (after commit, in the background). */
  signalingNotifier: SignalingNotifier;
  /** The internal signaling relay (GET/POST /signaling/{token}). */
  internalSignaling: InternalSignalingService;
}

/**
 * Builds the repositories bundle once, then every service in dependency order: each receives its
 * collaborators here, through its constructor, and nothing is wired after construction. The one
 * exception to "services call each other directly" is the event bus: "this happened" notices go
 * through `events`, and every subscription is listed in events/subscribers.ts.
 */
export function createServices(db: Db, settings: Settings, log: Logger): Services {
  const repos = createRepositories(db.kysely, db.dialect);
  const events = new EventBus();
  const chat = new ChatService(db, repos, events);
  const directory = new DirectoryService(repos, events);
  const appConfig = new AppConfigService(repos.appConfig, directory.groups);
  const bruteForce = new BruteForceService(
    repos.bruteForce,
    settings.bruteForceDelayMs,
    settings.bruteForceMaxAttempts,
    // A pool's statements are round trips (PostgreSQL): arriving requests' cap checks are gathered.
    db.pool !== undefined,
  );
  const auth = new AuthService(directory, bruteForce, settings.credentialCacheSeconds);
  const preferences = new PreferencesService(repos.preferences);
  const capabilities = new CapabilitiesService(preferences);
  const serviceHash = new ServiceHashService(preferences);
  const userStatus = new UserStatusService(repos.userStatus);
  const clientSessions = new ClientSessionService(repos.clientSessions, settings.baseUrl.startsWith('https:'));
  // Conversations: the lookup recognises guests and the caller's sessions by cookie session, and
  // the records are loaded (with statuses) by the conversation view service.
  const callerSessions = new CallerSessions(repos.participants, clientSessions);
  const lobbyTimers = new LobbyTimers(db, repos, events);
  const conversationView = new ConversationViewService(repos, userStatus, lobbyTimers);
  const conversationList = new ConversationListService(repos, conversationView, userStatus, callerSessions, settings.verifyKeptRecords);
  const teams = new TeamsService(repos.teams, directory, events);
  const rooms = new RoomsService(db, repos, directory, bruteForce, events, teams, callerSessions, settings.verifyKeptRecords);
  const calls = new CallService(db, rooms, repos, userStatus, events);
  const roomSettings = new RoomSettingsService(rooms, repos, repos.roomSettings, calls);
  const provisioning = new ProvisioningService(directory, auth);
  const sipSettings = new SipSettingsService(appConfig, directory.groups);
  const mail = new MailService(settings, repos.mailOutbox, log);
  const loginSessions = new LoginSessionService(repos.loginSessions, auth);
  const loginFlows = new LoginFlowService(repos.loginFlows, auth, directory, settings.loginFlowLifetimeSeconds);
  const sipBridge = new SipBridgeService(bruteForce);
  const phoneNumbers = new PhoneNumbersService(repos.phoneNumbers, directory);
  const sip = new SipService(rooms, repos, conversationView, sipBridge, phoneNumbers);
  const serverLists = new ServerListsService(appConfig);
  const sessions = new SessionService(rooms, repos, repos.participants, clientSessions, bruteForce, calls);
  const notifications = new NotificationService(repos.notifications, repos, directory, userStatus, appConfig);
  const participants = new ParticipantsService(
    rooms,
    repos,
    repos.participants,
    sessions,
    directory,
    teams,
    userStatus,
    mail,
    settings.baseUrl,
    notifications,
    sip,
  );
  const membershipSync = new MembershipSync(rooms, repos, repos.participants, directory, teams);
  const breakoutRooms = new BreakoutRoomsService(rooms, repos);
  const userAvatars = new UserAvatarService(repos.userAvatars, directory);
  const avatars = new AvatarService(repos.roomAvatars, rooms, directory);
  const blobStore = new LocalBlobStore(settings.dataDir);
  const files = new FilesService(db, repos, blobStore, appConfig);
  const chunkedUploads = new ChunkedUploadsService(repos, blobStore, files);
  const previews = new PreviewService(repos, blobStore);
  const housekeeping = new HousekeepingService(repos.housekeeping, rooms, appConfig, calls, repos.chatMessages, lobbyTimers, repos.userRateLimits);
  const metrics = new MetricsService(db, repos.metrics, [bruteForce.checks]);
  const chatMentions = new ChatMentions(repos, directory, settings.baseUrl);
  const chatApi = new ChatApiService(db, rooms, repos, chat, chatMentions, lobbyTimers, new ReceiveReadMarkers(db, repos, chat));
  const chatReactions = new ChatReactionsService(db, repos, chatApi, chat);
  const chatShares = new ChatSharesService(db, repos, chatApi, chat, rooms, settings.baseUrl);
  const chatReminders = new ChatRemindersService(db, repos, chatApi, rooms);
  const chatPins = new ChatPinsService(db, repos, chatApi, chat);
  const chatSchedule = new ChatScheduleService(db, repos, chatApi, chat, chatMentions, rooms, appConfig);
  const polls = new PollsService(db, repos, chatApi, chat, rooms);
  const breakoutBroadcast = new BreakoutBroadcastService(rooms, repos, breakoutRooms, chat, chatMentions);
  const signaling = new SignalingService(appConfig, rooms, settings.baseUrl);
  const signalingBackend = new SignalingBackendService(signaling, repos, repos.participants, sessions, repos.signaling, directory, bruteForce);
  const signalingNotifier = new SignalingNotifier(appConfig, repos.signaling, new SignalingChatRelay(repos), { baseUrl: settings.baseUrl });
  const internalSignaling = new InternalSignalingService(rooms, repos.signaling, appConfig, db.wake, settings.signalingPollSeconds);
  subscribeAll(events, {
    auth,
    loginSessions,
    userStatus,
    teams,
    phoneNumbers,
    membershipSync,
    avatars,
    userAvatars,
    files,
    chunkedUploads,
    notifications,
    chatSystemMessages: new ChatSystemMessages(chat, repos),
    chat,
    signalingNotifier,
    polls,
    calls,
    chatReminders,
    chatSchedule,
  });
  const roomOperator = new RoomOperatorService(rooms, repos, roomSettings, participants, directory, appConfig);
  return {
    repos,
    log,
    signaling,
    signalingBackend,
    signalingNotifier,
    internalSignaling,
    events,
    calls,
    chat,
    chatApi,
    chatReactions,
    chatShares,
    chatReminders,
    chatPins,
    chatSchedule,
    polls,
    breakoutBroadcast,
    chatMentions,
    roomOperator,
    breakoutRooms,
    avatars,
    userAvatars,
    files,
    chunkedUploads,
    previews,
    housekeeping,
    sessions,
    participants,
    serverLists,
    metrics,
    db,
    settings,
    userStatus,
    mail,
    teams,
    clientSessions,
    loginSessions,
    loginFlows,
    notifications,
    directory,
    appConfig,
    bruteForce,
    auth,
    preferences,
    capabilities,
    serviceHash,
    provisioning,
    sipSettings,
    rooms,
    conversationView,
    conversationList,
    roomSettings,
    sipBridge,
    sip,
    phoneNumbers,
  };
}
