/**
 * The service container: one instance of each service over one database. Built by `serve`,
 * by the CLI and by tests; routes and commands receive it and never construct services.
 * Each capability area adds its services here.
 */
import type { Db } from '../db/database.js';
import type { Settings } from '../settings.js';
import { EventBus } from '../events/bus.js';
import { subscribeAll } from '../events/subscribers.js';
import { AppConfigRepository } from '../db/repositories/app-config.js';
import { BruteForceRepository } from '../db/repositories/brute-force.js';
import { PreferencesRepository } from '../db/repositories/preferences.js';
import { AppConfigService } from './app-config.js';
import { AuthService } from './auth.js';
import { BruteForceService } from './brute-force.js';
import { CapabilitiesService } from './capabilities.js';
import { ServiceHashService } from './service-hash.js';
import { DirectoryService } from './directory.js';
import { LoginSessionService } from './login-sessions.js';
import { ServerListsService } from './server-lists.js';
import { MetricsService } from './metrics.js';
import { LoginSessionsRepository } from '../db/repositories/login-sessions.js';
import { UserStatusRepository } from '../db/repositories/user-status.js';
import { MailOutboxRepository } from '../db/repositories/mail-outbox.js';
import { TeamsRepository } from '../db/repositories/teams.js';
import { PhoneNumbersRepository } from '../db/repositories/phone-numbers.js';
import { ClientSessionsRepository } from '../db/repositories/client-sessions.js';
import { UserStatusService } from './user-status.js';
import { MailService } from './mail.js';
import { TeamsService } from './teams.js';
import { PhoneNumbersService } from './phone-numbers.js';
import { ClientSessionService } from './client-sessions.js';
import { ParticipantsRepository } from '../db/repositories/participants.js';
import { SessionService } from './sessions.js';
import { ParticipantsService } from './participants.js';
import { RoomOperatorService } from './room-operator.js';
import { MembershipSync } from './membership-sync.js';
import { PreferencesService } from './preferences.js';
import { RoomsService } from './rooms.js';
import { BreakoutRoomsService } from './breakout-rooms.js';
import { AvatarService } from './avatars.js';
import { HousekeepingService } from './housekeeping.js';
import { RoomSettingsService } from './room-settings.js';
import { RoomSettingsRepository } from '../db/repositories/room-settings.js';
import { SipSettingsService } from './sip-settings.js';
import { SipBridgeService } from './sip-bridge.js';
import { SipService } from './sip.js';
import { ProvisioningService } from './provisioning.js';
import { SignalingRepository } from '../db/repositories/signaling.js';
import { SignalingService } from './signaling.js';
import { SignalingBackendService } from './signaling-backend.js';
import { SignalingNotifier } from './signaling-notifier.js';
import { InternalSignalingService } from './internal-signaling.js';
import { LoginFlowService } from './login-flows.js';
import { NotificationService } from './notifications.js';
import { NotificationsRepository } from '../db/repositories/notifications.js';
import { UserAvatarService } from './user-avatars.js';
import { UserAvatarsRepository } from '../db/repositories/user-avatars.js';
import { LoginFlowsRepository } from '../db/repositories/login-flows.js';

export interface Services {
  db: Db;
  /** "This happened": emitted by the owning service, subscribed in events/subscribers.ts. */
  events: EventBus;
  settings: Settings;
  directory: DirectoryService;
  appConfig: AppConfigService;
  bruteForce: BruteForceService;
  auth: AuthService;
  preferences: PreferencesService;
  capabilities: CapabilitiesService;
  /** X-Service-Hash / X-Nextcloud-Talk-Hash for GET /room and GET /room/{token}. */
  serviceHash: ServiceHashService;
  rooms: RoomsService;
  breakoutRooms: BreakoutRoomsService;
  avatars: AvatarService;
  /** User and guest avatars at Nextcloud's /index.php/avatar paths. */
  userAvatars: UserAvatarService;
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
  participants: ParticipantsService;
  /** The operator's talk:room:* and talk:user:remove commands, over the services above. */
  roomOperator: RoomOperatorService;
  sipSettings: SipSettingsService;
  sipBridge: SipBridgeService;
  sip: SipService;
  /** Users' phone numbers (`parley phone-number:*`): the dial-out caller number. */
  phoneNumbers: PhoneNumbersService;
  provisioning: ProvisioningService;
  /** Signaling settings and tickets (GET /signaling/settings). */
  signaling: SignalingService;
  /** The backend API an external signaling server calls. */
  signalingBackend: SignalingBackendService;
  /** Tells the external signaling server about room changes (after commit, in the background). */
  signalingNotifier: SignalingNotifier;
  /** The internal signaling relay (GET/POST /signaling/{token}). */
  internalSignaling: InternalSignalingService;
}

export function createServices(db: Db, settings: Settings): Services {
  const events = new EventBus();
  const directory = new DirectoryService(db, events);
  const appConfig = new AppConfigService(new AppConfigRepository(db.kysely), directory.groups);
  const bruteForce = new BruteForceService(new BruteForceRepository(db.kysely), settings.bruteForceDelayMs, settings.bruteForceMaxAttempts);
  const auth = new AuthService(directory, bruteForce, settings.credentialCacheSeconds);
  const preferences = new PreferencesService(new PreferencesRepository(db.kysely));
  const capabilities = new CapabilitiesService(preferences);
  const serviceHash = new ServiceHashService(preferences);
  const rooms = new RoomsService(db, directory, bruteForce, events);
  const roomSettings = new RoomSettingsService(rooms, new RoomSettingsRepository(db.kysely));
  const provisioning = new ProvisioningService(directory, auth);
  const sipSettings = new SipSettingsService(appConfig, directory.groups);
  const userStatus = new UserStatusService(new UserStatusRepository(db.kysely));
  const mail = new MailService(settings, new MailOutboxRepository(db.kysely));
  const teams = new TeamsService(new TeamsRepository(db.kysely), directory, events);
  const clientSessions = new ClientSessionService(new ClientSessionsRepository(db.kysely), settings.baseUrl.startsWith('https:'));
  const loginSessions = new LoginSessionService(new LoginSessionsRepository(db.kysely), auth);
  const loginFlows = new LoginFlowService(new LoginFlowsRepository(db.kysely), auth, directory, settings.loginFlowLifetimeSeconds);
  const sipBridge = new SipBridgeService(bruteForce);
  const phoneNumbers = new PhoneNumbersService(new PhoneNumbersRepository(db.kysely), directory);
  const sip = new SipService(rooms, sipBridge, phoneNumbers);
  const serverLists = new ServerListsService(appConfig);
  const participantsRepo = new ParticipantsRepository(db.kysely);
  const sessions = new SessionService(rooms, participantsRepo, clientSessions, bruteForce);
  const notifications = new NotificationService(new NotificationsRepository(db.kysely), rooms, directory, userStatus);
  const participants = new ParticipantsService(rooms, participantsRepo, sessions, directory, teams, userStatus, mail, settings.baseUrl, notifications);
  const membershipSync = new MembershipSync(rooms, participantsRepo, directory, teams);
  rooms.presenter.userStatusLoader = (ids) => userStatus.forUsers(ids);
  const breakoutRooms = new BreakoutRoomsService(db, rooms);
  const userAvatars = new UserAvatarService(new UserAvatarsRepository(db.kysely), directory);
  const avatars = new AvatarService(db, rooms, directory);
  const housekeeping = new HousekeepingService(db, rooms, appConfig);
  participants.phoneAdder = (ctx, room, number) => sip.addPhoneParticipant(ctx, room, number);
  const signalingRepo = new SignalingRepository(db.kysely);
  const signaling = new SignalingService(appConfig, rooms, settings.baseUrl);
  const signalingBackend = new SignalingBackendService(signaling, rooms, participantsRepo, sessions, signalingRepo, directory, bruteForce);
  const signalingNotifier = new SignalingNotifier(appConfig, signalingRepo, { baseUrl: settings.baseUrl });
  const internalSignaling = new InternalSignalingService(rooms, signalingRepo, appConfig, db.wake, settings.signalingPollSeconds);
  subscribeAll(events, { auth, loginSessions, userStatus, teams, phoneNumbers, membershipSync, avatars, userAvatars, notifications, signalingNotifier });
  const roomOperator = new RoomOperatorService(rooms, roomSettings, participants, directory, appConfig);
  return { signaling, signalingBackend, signalingNotifier, internalSignaling, events, roomOperator, breakoutRooms, avatars, userAvatars, housekeeping, sessions, participants, serverLists, metrics: new MetricsService(db), db, settings, userStatus, mail, teams, clientSessions, loginSessions, loginFlows, notifications, directory, appConfig, bruteForce, auth, preferences, capabilities, serviceHash, provisioning, sipSettings, rooms, roomSettings, sipBridge, sip, phoneNumbers };
}
