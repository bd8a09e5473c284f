/**
 * The repositories bundle: one instance of each repository over one database, built once by
 * createServices and handed to the services that need them. `withTransaction(trx)` gives the
 * same bundle bound to a transaction, so a service writes several tables in one transaction
 * without constructing repositories itself.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Database } from '../schema.js';
import { AppConfigRepository } from './app-config.js';
import { AppPasswordsRepository } from './app-passwords.js';
import { AttendeesRepository } from './attendees.js';
import { BruteForceRepository } from './brute-force.js';
import { CallsRepository } from './calls.js';
import { ChatMessagesRepository } from './chat-messages.js';
import { ChatReactionsRepository } from './chat-reactions.js';
import { ChatRemindersRepository } from './chat-reminders.js';
import { ChatSharedItemsRepository } from './chat-shared-items.js';
import { ScheduledMessagesRepository } from './scheduled-messages.js';
import { ClientSessionsRepository } from './client-sessions.js';
import { GroupsRepository } from './groups.js';
import { HousekeepingRepository } from './housekeeping.js';
import { JobRunsRepository } from './job-runs.js';
import { LoginFlowsRepository } from './login-flows.js';
import { LoginSessionsRepository } from './login-sessions.js';
import { MailOutboxRepository } from './mail-outbox.js';
import { MetricsRepository } from './metrics.js';
import { HealthRepository } from './health.js';
import { NotificationsRepository } from './notifications.js';
import { OutboxRepository } from './outbox.js';
import { FederationTrustedServersRepository } from './federation-trusted-servers.js';
import { FederationInvitationsRepository } from './federation-invitations.js';
import { FederationSyncRepository } from './federation-sync.js';
import { PushDevicesRepository } from './push-devices.js';
import { WebpushSubscriptionsRepository } from './webpush-subscriptions.js';
import { ParticipantsRepository } from './participants.js';
import { PhoneNumbersRepository } from './phone-numbers.js';
import { PollsRepository } from './polls.js';
import { PreferencesRepository } from './preferences.js';
import { RoomAvatarsRepository } from './room-avatars.js';
import { RoomSettingsRepository } from './room-settings.js';
import { RoomsRepository } from './rooms.js';
import { SessionsRepository } from './sessions.js';
import { SignalingRepository } from './signaling.js';
import { TeamsRepository } from './teams.js';
import { UserAvatarsRepository } from './user-avatars.js';
import { FilesRepository } from './files.js';
import { FileUploadsRepository } from './file-uploads.js';
import { FileSharesRepository } from './file-shares.js';
import { FileFavoritesRepository } from './file-favorites.js';
import { UserRateLimitsRepository } from './user-rate-limits.js';
import { UserStatusRepository } from './user-status.js';
import { UsersRepository } from './users.js';

/** Every repository, by name. */
export interface RepositorySet {
  appConfig: AppConfigRepository;
  appPasswords: AppPasswordsRepository;
  attendees: AttendeesRepository;
  bruteForce: BruteForceRepository;
  calls: CallsRepository;
  chatMessages: ChatMessagesRepository;
  chatReactions: ChatReactionsRepository;
  chatReminders: ChatRemindersRepository;
  chatSharedItems: ChatSharedItemsRepository;
  scheduledMessages: ScheduledMessagesRepository;
  clientSessions: ClientSessionsRepository;
  groups: GroupsRepository;
  housekeeping: HousekeepingRepository;
  jobRuns: JobRunsRepository;
  loginFlows: LoginFlowsRepository;
  loginSessions: LoginSessionsRepository;
  mailOutbox: MailOutboxRepository;
  metrics: MetricsRepository;
  health: HealthRepository;
  notifications: NotificationsRepository;
  outbox: OutboxRepository;
  federationTrustedServers: FederationTrustedServersRepository;
  federationInvitations: FederationInvitationsRepository;
  federationSync: FederationSyncRepository;
  pushDevices: PushDevicesRepository;
  webpushSubscriptions: WebpushSubscriptionsRepository;
  participants: ParticipantsRepository;
  phoneNumbers: PhoneNumbersRepository;
  polls: PollsRepository;
  preferences: PreferencesRepository;
  roomAvatars: RoomAvatarsRepository;
  roomSettings: RoomSettingsRepository;
  rooms: RoomsRepository;
  sessions: SessionsRepository;
  signaling: SignalingRepository;
  teams: TeamsRepository;
  userAvatars: UserAvatarsRepository;
  files: FilesRepository;
  fileUploads: FileUploadsRepository;
  fileShares: FileSharesRepository;
  fileFavorites: FileFavoritesRepository;
  userRateLimits: UserRateLimitsRepository;
  userStatus: UserStatusRepository;
  users: UsersRepository;
}

export interface Repositories extends RepositorySet {
  /** The same bundle bound to `trx`; each repository is built on first use (most transactions touch two or three). */
  withTransaction(trx: Kysely<Database>): Repositories;
}

type Makers = { [K in keyof RepositorySet]: (kysely: Kysely<Database>, dialect: Dialect) => RepositorySet[K] };

const MAKERS: Makers = {
  appConfig: (kysely) => new AppConfigRepository(kysely),
  appPasswords: (kysely) => new AppPasswordsRepository(kysely),
  attendees: (kysely) => new AttendeesRepository(kysely),
  bruteForce: (kysely, dialect) => new BruteForceRepository(kysely, dialect),
  calls: (kysely) => new CallsRepository(kysely),
  chatMessages: (kysely) => new ChatMessagesRepository(kysely),
  chatReactions: (kysely) => new ChatReactionsRepository(kysely),
  chatReminders: (kysely) => new ChatRemindersRepository(kysely),
  chatSharedItems: (kysely) => new ChatSharedItemsRepository(kysely),
  scheduledMessages: (kysely) => new ScheduledMessagesRepository(kysely),
  clientSessions: (kysely) => new ClientSessionsRepository(kysely),
  groups: (kysely) => new GroupsRepository(kysely),
  housekeeping: (kysely) => new HousekeepingRepository(kysely),
  jobRuns: (kysely) => new JobRunsRepository(kysely),
  loginFlows: (kysely) => new LoginFlowsRepository(kysely),
  loginSessions: (kysely) => new LoginSessionsRepository(kysely),
  mailOutbox: (kysely) => new MailOutboxRepository(kysely),
  metrics: (kysely) => new MetricsRepository(kysely),
  health: (kysely) => new HealthRepository(kysely),
  notifications: (kysely) => new NotificationsRepository(kysely),
  outbox: (kysely, dialect) => new OutboxRepository(kysely, dialect),
  federationTrustedServers: (kysely) => new FederationTrustedServersRepository(kysely),
  federationInvitations: (kysely) => new FederationInvitationsRepository(kysely),
  federationSync: (kysely) => new FederationSyncRepository(kysely),
  pushDevices: (kysely) => new PushDevicesRepository(kysely),
  webpushSubscriptions: (kysely) => new WebpushSubscriptionsRepository(kysely),
  participants: (kysely, dialect) => new ParticipantsRepository(kysely, dialect),
  phoneNumbers: (kysely) => new PhoneNumbersRepository(kysely),
  polls: (kysely) => new PollsRepository(kysely),
  preferences: (kysely) => new PreferencesRepository(kysely),
  roomAvatars: (kysely) => new RoomAvatarsRepository(kysely),
  roomSettings: (kysely) => new RoomSettingsRepository(kysely),
  rooms: (kysely, dialect) => new RoomsRepository(kysely, dialect),
  sessions: (kysely) => new SessionsRepository(kysely),
  signaling: (kysely, dialect) => new SignalingRepository(kysely, dialect),
  teams: (kysely) => new TeamsRepository(kysely),
  userAvatars: (kysely) => new UserAvatarsRepository(kysely),
  files: (kysely) => new FilesRepository(kysely),
  fileUploads: (kysely) => new FileUploadsRepository(kysely),
  fileShares: (kysely) => new FileSharesRepository(kysely),
  fileFavorites: (kysely) => new FileFavoritesRepository(kysely),
  userRateLimits: (kysely, dialect) => new UserRateLimitsRepository(kysely, dialect),
  userStatus: (kysely) => new UserStatusRepository(kysely),
  users: (kysely) => new UsersRepository(kysely),
};

const KEYS = Object.keys(MAKERS) as Array<keyof RepositorySet>;

/** The bundle over the database: every repository built now (some compile their hot reads once). */
export function createRepositories(kysely: Kysely<Database>, dialect: Dialect): Repositories {
  const bundle = { withTransaction: (trx: Kysely<Database>) => transactionRepositories(trx, dialect) } as Repositories;
  for (const key of KEYS) Object.assign(bundle, { [key]: MAKERS[key](kysely, dialect) });
  return bundle;
}

/**
 * The bundle over a transaction: lazy, so a transaction pays only for the repositories it uses.
 * The getters live once on a shared prototype (a hot write path opens a transaction per request).
 */
function transactionRepositories(trx: Kysely<Database>, dialect: Dialect): Repositories {
  return new TransactionRepositories(trx, dialect) as unknown as Repositories;
}

class TransactionRepositories {
  readonly made: Partial<RepositorySet> = {};

  constructor(
    readonly trx: Kysely<Database>,
    readonly dialect: Dialect,
  ) {}

  withTransaction(inner: Kysely<Database>): Repositories {
    return transactionRepositories(inner, this.dialect);
  }
}

for (const key of KEYS) {
  Object.defineProperty(TransactionRepositories.prototype, key, {
    enumerable: true,
    get(this: TransactionRepositories) {
      return (this.made[key] ??= MAKERS[key](this.trx, this.dialect) as never);
    },
  });
}
