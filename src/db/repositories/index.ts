/**
 * The repositories bundle: one instance of each repository over one database (or one
 * transaction), built once by createServices and handed to the services that need them.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Database } from '../schema.js';
import { AppConfigRepository } from './app-config.js';
import { AppPasswordsRepository } from './app-passwords.js';
import { AttendeesRepository } from './attendees.js';
import { BruteForceRepository } from './brute-force.js';
import { ClientSessionsRepository } from './client-sessions.js';
import { GroupsRepository } from './groups.js';
import { HousekeepingRepository } from './housekeeping.js';
import { LoginFlowsRepository } from './login-flows.js';
import { LoginSessionsRepository } from './login-sessions.js';
import { MailOutboxRepository } from './mail-outbox.js';
import { MetricsRepository } from './metrics.js';
import { NotificationsRepository } from './notifications.js';
import { ParticipantsRepository } from './participants.js';
import { PhoneNumbersRepository } from './phone-numbers.js';
import { PreferencesRepository } from './preferences.js';
import { RoomAvatarsRepository } from './room-avatars.js';
import { RoomSettingsRepository } from './room-settings.js';
import { RoomsRepository } from './rooms.js';
import { SessionsRepository } from './sessions.js';
import { SignalingRepository } from './signaling.js';
import { TeamsRepository } from './teams.js';
import { UserAvatarsRepository } from './user-avatars.js';
import { UserStatusRepository } from './user-status.js';
import { UsersRepository } from './users.js';

export interface Repositories {
  appConfig: AppConfigRepository;
  appPasswords: AppPasswordsRepository;
  attendees: AttendeesRepository;
  bruteForce: BruteForceRepository;
  clientSessions: ClientSessionsRepository;
  groups: GroupsRepository;
  housekeeping: HousekeepingRepository;
  loginFlows: LoginFlowsRepository;
  loginSessions: LoginSessionsRepository;
  mailOutbox: MailOutboxRepository;
  metrics: MetricsRepository;
  notifications: NotificationsRepository;
  participants: ParticipantsRepository;
  phoneNumbers: PhoneNumbersRepository;
  preferences: PreferencesRepository;
  roomAvatars: RoomAvatarsRepository;
  roomSettings: RoomSettingsRepository;
  rooms: RoomsRepository;
  sessions: SessionsRepository;
  signaling: SignalingRepository;
  teams: TeamsRepository;
  userAvatars: UserAvatarsRepository;
  userStatus: UserStatusRepository;
  users: UsersRepository;
}

export function createRepositories(kysely: Kysely<Database>, dialect: Dialect): Repositories {
  return {
    appConfig: new AppConfigRepository(kysely),
    appPasswords: new AppPasswordsRepository(kysely),
    attendees: new AttendeesRepository(kysely),
    bruteForce: new BruteForceRepository(kysely, dialect),
    clientSessions: new ClientSessionsRepository(kysely),
    groups: new GroupsRepository(kysely),
    housekeeping: new HousekeepingRepository(kysely),
    loginFlows: new LoginFlowsRepository(kysely),
    loginSessions: new LoginSessionsRepository(kysely),
    mailOutbox: new MailOutboxRepository(kysely),
    metrics: new MetricsRepository(kysely),
    notifications: new NotificationsRepository(kysely),
    participants: new ParticipantsRepository(kysely),
    phoneNumbers: new PhoneNumbersRepository(kysely),
    preferences: new PreferencesRepository(kysely),
    roomAvatars: new RoomAvatarsRepository(kysely),
    roomSettings: new RoomSettingsRepository(kysely),
    rooms: new RoomsRepository(kysely),
    sessions: new SessionsRepository(kysely),
    signaling: new SignalingRepository(kysely),
    teams: new TeamsRepository(kysely),
    userAvatars: new UserAvatarsRepository(kysely),
    userStatus: new UserStatusRepository(kysely),
    users: new UsersRepository(kysely),
  };
}
