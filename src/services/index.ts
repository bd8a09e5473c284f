/**
 * The service container: one instance of each service over one database. Built by `serve`,
 * by the CLI and by tests; routes and commands receive it and never construct services.
 * Each capability area adds its services here, in createServices' dependency order.
 */
import { LobbyTimers } from './conversations/lobby-timers.js';
import type { Db } from '../db/database.js';
import type { Settings } from '../settings.js';
import type { Logger } from '../log.js';
import { EventBus } from '../events/bus.js';
import { subscribeAll } from './subscribers.js';
import { createRepositories, type Repositories } from '../db/repositories/index.js';
import { AppConfigService } from './platform/app-config.js';
import { AuthService } from './accounts/auth.js';
import { BruteForceService } from './accounts/brute-force.js';
import { CapabilitiesService } from './platform/capabilities.js';
import { ServiceHashService } from './platform/service-hash.js';
import { DirectoryService } from './accounts/directory.js';
import { LoginSessionService } from './accounts/login-sessions.js';
import { ServerListsService } from './platform/server-lists.js';
import { MetricsService } from './platform/metrics.js';
import { UserStatusService } from './accounts/user-status.js';
import { MailService } from './notifications/mail.js';
import { TeamsService } from './accounts/teams.js';
import { PhoneNumbersService } from './sip/phone-numbers.js';
import { ClientSessionService } from './participants/client-sessions.js';
import { SessionService } from './participants/sessions.js';
import { ParticipantsService } from './participants/participants.js';
import { ParticipantRolesService } from './participants/participant-roles.js';
import { RoomOperatorService } from './conversations/room-operator.js';
import { MembershipSync } from './participants/membership-sync.js';
import { PreferencesService } from './accounts/preferences.js';
import { RoomsService } from './conversations/rooms.js';
import { RoomCreation } from './conversations/room-creation.js';
import { RoomInvitations } from './conversations/room-invitations.js';
import { BreakoutRoomsService } from './conversations/breakout-rooms.js';
import { AvatarService } from './conversations/avatars.js';
import { HousekeepingService } from './conversations/housekeeping.js';
import { CallService } from './calls/calls.js';
import { RoomSettingsService } from './conversations/room-settings.js';
import { ConversationListService } from './conversations/conversation-list.js';
import { SipSettingsService } from './sip/sip-settings.js';
import { SipBridgeService } from './sip/sip-bridge.js';
import { SipService } from './sip/sip.js';
import { ProvisioningService } from './accounts/provisioning.js';
import { ChatService } from './chat/chat.js';
import { ReceiveReadMarkers } from './chat/receive-read-markers.js';
import { ChatApiService } from './chat/chat-api.js';
import { ChatReactionsService } from './chat/chat-reactions.js';
import { ChatSharesService } from './chat/chat-shares.js';
import { ChatRemindersService } from './chat/chat-reminders.js';
import { ChatPinsService } from './chat/chat-pins.js';
import { ChatScheduleService } from './chat/chat-schedule.js';
import { PollsService } from './chat/polls.js';
import { BreakoutBroadcastService } from './conversations/breakout-broadcast.js';
import { ChatMentions } from './chat/chat-mentions.js';
import { ChatSystemMessages } from './chat/chat-system-messages.js';
import { SignalingService } from './signaling/signaling.js';
import { SignalingBackendService } from './signaling/signaling-backend.js';
import { SignalingNotifier } from './signaling/signaling-notifier.js';
import { SetupChecksService } from './platform/setup-checks.js';
import { SignalingChatRelay } from './signaling/signaling-chat-relay.js';
import { AutocompleteService } from './accounts/autocomplete.js';
import { InternalSignalingService } from './signaling/internal-signaling.js';
import { LoginFlowService } from './accounts/login-flows.js';
import { NotificationService } from './notifications/notifications.js';
import { UserAvatarService } from './accounts/user-avatars.js';
import { CallerSessions } from './participants/caller-sessions.js';
import { ConversationViewService } from './conversations/conversation-view.js';
import { createPush, type PushServices } from './push/index.js';
import { OutboxSignal } from './outbox/signal.js';
import { OutboxWorker } from './outbox/worker.js';
import { FileFavoritesService } from './files/favorites.js';
import { createFederation, type FederationServices } from './federation/index.js';
import { FilesService } from './files/files.js';
import { RenderedAnswers } from '../cache/rendered-cache.js';
import { LocalBlobStore } from './files/local-storage.js';
import { PreviewCache } from './files/preview-cache.js';
import { ChunkedUploadsService } from './files/chunked-uploads.js';
import { PreviewService } from './files/previews.js';
import { FileShareTargets } from './files/share-targets.js';
import { FileSharesService } from './files/file-shares.js';

export interface Services {
  db: Db;
  /**
   * The repositories bundle the services were built over: for the job scheduler's own table and
   * for tests that set up rows. Routes never use it (they go through a service).
   */
  repos: Repositories;
  /** "This happened": emitted by the owning service, subscribed in services/subscribers.ts. */
  events: EventBus;
  /** Rendered answers of the routes that declare `cache` (src/http/ocs/cached-answer.ts), one store per route family. */
  renderedAnswers: RenderedAnswers;
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
  /** POST /room, note-to-self and the operator's conversations without an owner. */
  roomCreation: RoomCreation;
  /** POST /room with Talk's participants map. */
  roomInvitations: RoomInvitations;
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
  shareTargets: FileShareTargets;
  fileFavorites: FileFavoritesService;
  fileShares: FileSharesService;
  housekeeping: HousekeepingService;
  /** Conversation settings: description, public, read-only, password, permissions, favorites, ... */
  roomSettings: RoomSettingsService;
  loginSessions: LoginSessionService;
  /** Login Flow v2 / v1: how Talk apps obtain an app password. */
  loginFlows: LoginFlowService;
  /** The notifications app: Talk's invitation, mention and call notifications. */
  notifications: NotificationService;
  /** Push notifications: device registration, delivery to the push proxy, Web Push. */
  push: PushServices;
  /** Delivers what the outbox holds (pushes), in the background; stopped by closeServices. */
  outbox: OutboxWorker;
  /** Federation: OCM discovery, trusted servers, invitations (docs/federation.md). */
  federation: FederationServices;
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
  /** Moderators and attendee permissions. */
  participantRoles: ParticipantRolesService;
  /** The operator's talk:room:* and talk:user:remove commands, over the services above. */
  roomOperator: RoomOperatorService;
  sipSettings: SipSettingsService;
  sipBridge: SipBridgeService;
  sip: SipService;
  /** Users' phone numbers (`parley phone-number:*`): the dial-out caller number. */
  phoneNumbers: PhoneNumbersService;
  provisioning: ProvisioningService;
  /** Finding people: Nextcloud's collaborator autocomplete with Talk's filters. */
  autocomplete: AutocompleteService;
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
  setupChecks: SetupChecksService;
  /** The internal signaling relay (GET/POST /signaling/{token}). */
  internalSignaling: InternalSignalingService;
}

/**
 * Builds the repositories bundle once, then every service in dependency order: each receives its
 * collaborators here, through its constructor, and nothing is wired after construction. The one
 * exception to "services call each other directly" is the event bus: "this happened" notices go
 * through `events`, and every subscription is listed in services/subscribers.ts.
 */
export function createServices(db: Db, settings: Settings, log: Logger): Services {
  const repos = createRepositories(db.kysely, db.dialect);
  const events = new EventBus();
  const renderedAnswers = new RenderedAnswers(db.kysely, settings.verifyKeptRecords);
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
  const auth = new AuthService(directory, bruteForce, events, settings.credentialCacheSeconds);
  const blobStore = new LocalBlobStore(settings.dataDir);
  const files = new FilesService(db, repos, blobStore, appConfig);
  const fileFavorites = new FileFavoritesService(repos.fileFavorites);
  const preferences = new PreferencesService(repos.preferences, files);
  const capabilities = new CapabilitiesService(preferences, settings.webPush);
  const serviceHash = new ServiceHashService(preferences);
  const userStatus = new UserStatusService(repos.userStatus);
  const clientSessions = new ClientSessionService(repos.clientSessions, settings.baseUrl.startsWith('https:'));
  // Conversations: the lookup recognises guests and the caller's sessions by cookie session, and
  // the records are loaded (with statuses) by the conversation view service.
  const callerSessions = new CallerSessions(repos.participants, clientSessions, repos.groups);
  const lobbyTimers = new LobbyTimers(db, repos, events);
  const conversationView = new ConversationViewService(repos, userStatus, lobbyTimers);
  const conversationList = new ConversationListService(repos, conversationView, userStatus, callerSessions, settings.verifyKeptRecords);
  const teams = new TeamsService(repos.teams, directory, events);
  const rooms = new RoomsService(db, repos, directory, bruteForce, events, callerSessions);
  const roomCreation = new RoomCreation(rooms, repos, directory, teams);
  const calls = new CallService(db, rooms, repos, userStatus, events);
  const roomSettings = new RoomSettingsService(rooms, repos, repos.roomSettings, calls);
  const provisioning = new ProvisioningService(directory, auth);
  const autocomplete = new AutocompleteService(repos, userStatus, rooms);
  const sipSettings = new SipSettingsService(appConfig, directory.groups);
  const loginSessions = new LoginSessionService(repos.loginSessions, auth, events);
  const loginFlows = new LoginFlowService(repos.loginFlows, auth, directory, settings.loginFlowLifetimeSeconds);
  const sipBridge = new SipBridgeService(bruteForce);
  const phoneNumbers = new PhoneNumbersService(repos.phoneNumbers, directory);
  const sip = new SipService(rooms, repos, conversationView, sipBridge, phoneNumbers);
  const serverLists = new ServerListsService(appConfig);
  const sessions = new SessionService(rooms, repos, repos.participants, clientSessions, bruteForce, calls);
  const outboxSignal = new OutboxSignal();
  const mail = new MailService(settings, repos.mailOutbox, repos.outbox, outboxSignal, log);
  const notifications = new NotificationService(repos.notifications, repos, directory, userStatus, appConfig, () => outboxSignal.kick());
  const federation = createFederation(repos, settings, appConfig, { rooms, directory, notifications, bruteForce, signal: outboxSignal, log });
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
    {
      invite: (...a) => federation.host.invite(...a),
      leaveProxied: (ctx, room) => federation.invitations.leave(ctx, room),
      listProxied: (ctx, room) => federation.proxy.participants(ctx, room),
    },
  );
  const roomInvitations = new RoomInvitations(roomCreation, participants, rooms, directory, teams);
  const participantRoles = new ParticipantRolesService(rooms, repos, repos.participants);
  const membershipSync = new MembershipSync(rooms, repos, repos.participants, directory, teams);
  const breakoutRooms = new BreakoutRoomsService(rooms, repos);
  const userAvatars = new UserAvatarService(repos.userAvatars, directory);
  const avatars = new AvatarService(repos.roomAvatars, rooms, directory, federation.proxy);
  const chunkedUploads = new ChunkedUploadsService(repos, blobStore, files);
  const previews = new PreviewService(repos, blobStore, new PreviewCache(settings.dataDir), appConfig);
  const housekeeping = new HousekeepingService(repos.housekeeping, rooms, appConfig, calls, repos.chatMessages, lobbyTimers, repos.userRateLimits);
  const push = createPush(repos, settings, notifications, userStatus, outboxSignal, log);
  const signalingNotifier = new SignalingNotifier(appConfig, repos.signaling, new SignalingChatRelay(repos), repos.outbox, outboxSignal, {
    baseUrl: settings.baseUrl,
    log,
  });
  const outbox = new OutboxWorker(repos.outbox, [push.proxyDelivery, push.webPush, signalingNotifier, mail, federation.delivery], log, outboxSignal);
  const metrics = new MetricsService(db, repos.metrics, [
    bruteForce.checks,
    outbox.rows,
    push.counters.sent,
    push.counters.failed,
    push.counters.dropped,
    previews.answered,
  ]);
  const chatMentions = new ChatMentions(repos, directory, settings.baseUrl);
  const shareTargets = new FileShareTargets(repos, files, appConfig);
  const chatApi = new ChatApiService(
    db,
    rooms,
    repos,
    chat,
    chatMentions,
    lobbyTimers,
    new ReceiveReadMarkers(db, repos, chat),
    shareTargets,
    federation.proxy,
  );
  const fileShares = new FileSharesService(db, repos, chatApi, chat, chatMentions, rooms, previews, shareTargets, settings.baseUrl);
  const chatReactions = new ChatReactionsService(db, repos, chatApi, chat);
  const chatShares = new ChatSharesService(db, repos, chatApi, chat, rooms, settings.baseUrl);
  const chatReminders = new ChatRemindersService(db, repos, chatApi, rooms);
  const chatPins = new ChatPinsService(db, repos, chatApi, chat);
  const chatSchedule = new ChatScheduleService(db, repos, chatApi, chat, chatMentions, rooms, appConfig);
  const polls = new PollsService(db, repos, chatApi, chat, rooms);
  const breakoutBroadcast = new BreakoutBroadcastService(rooms, repos, breakoutRooms, chat, chatMentions);
  const signaling = new SignalingService(appConfig, rooms, settings.baseUrl);
  const signalingBackend = new SignalingBackendService(signaling, repos, repos.participants, sessions, repos.signaling, directory, bruteForce);
  const setupChecks = new SetupChecksService(settings, repos.health, appConfig, mail, signaling, signalingNotifier, (ms) => push.checkProxies(ms));
  metrics.addFamily(signalingNotifier.deliveries);
  const internalSignaling = new InternalSignalingService(rooms, repos.signaling, appConfig, db.wake, settings.signalingPollSeconds);
  subscribeAll(events, {
    auth,
    loginSessions,
    sessions,
    userStatus,
    teams,
    phoneNumbers,
    membershipSync,
    avatars,
    userAvatars,
    files,
    fileFavorites,
    fileShares,
    chunkedUploads,
    notifications,
    chatSystemMessages: new ChatSystemMessages(chat, repos),
    chat,
    signalingNotifier,
    polls,
    calls,
    chatReminders,
    chatSchedule,
    pushKeys: push.keys,
    federation,
  });
  const roomOperator = new RoomOperatorService(rooms, roomCreation, repos, roomSettings, participants, participantRoles, directory, appConfig);
  return {
    repos,
    renderedAnswers,
    log,
    signaling,
    signalingBackend,
    signalingNotifier,
    setupChecks,
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
    shareTargets,
    fileFavorites,
    fileShares,
    housekeeping,
    sessions,
    participants,
    participantRoles,
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
    push,
    outbox,
    federation,
    directory,
    appConfig,
    bruteForce,
    auth,
    preferences,
    capabilities,
    serviceHash,
    provisioning,
    autocomplete,
    sipSettings,
    rooms,
    roomCreation,
    roomInvitations,
    conversationView,
    conversationList,
    roomSettings,
    sipBridge,
    sip,
    phoneNumbers,
  };
}
