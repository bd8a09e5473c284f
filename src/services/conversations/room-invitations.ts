/**
 * `POST /room` with Talk's `participants` map (docs/reference/conversations.md#creation-with-participants):
 * the invitees are checked as Talk's InvitationService checks them, the conversation is created
 * (public when an e-mail invitee is valid), then each valid invitee is added as
 * `POST /room/{token}/participants` adds it. Every invalid invitee is listed in
 * `invalidParticipants` (202); when none is valid and some are invalid nothing is created (404
 * `invite`).
 */
import { ApiError, badRequest, notFound } from '../../domain/errors.js';
import { emailProblem } from '../../domain/accounts.js';
import { federationSwitches } from '../../domain/federation/rules.js';
import { parseCloudId } from '../../domain/federation/cloud-id.js';
import { dialOutEnabled, isE164 } from '../../domain/sip.js';
import { RoomType } from '../../domain/constants.js';
import type { RequestContext } from '../platform/request-context.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { TeamsService } from '../accounts/teams.js';
import type { ParticipantsService } from '../participants/participants.js';
import type { RoomCreation, CreateInput } from './room-creation.js';
import type { CallerRoom, RoomsService } from './rooms.js';

/** Talk's invitation kinds, in the order of its `invalidParticipants` answer. */
export const INVITATION_KINDS = ['users', 'federated_users', 'groups', 'teams', 'emails', 'phones'] as const;
export type InvitationKind = (typeof INVITATION_KINDS)[number];
export type InvitationMap = Partial<Record<InvitationKind, string[]>>;

/** Bounds of one list of the map and of one entry (Talk takes any; docs/compatibility.md lists it). */
export const INVITATIONS_MAX = 200;
export const INVITATION_MAX_LENGTH = 255;

export interface CreatedWithInvitations {
  caller: CallerRoom;
  created: boolean;
  /** Talk's `invalidParticipants`: only the kinds with refused entries (answered with 202). */
  invalid?: InvitationMap;
}

export class RoomInvitations {
  constructor(
    private readonly creation: RoomCreation,
    private readonly participants: ParticipantsService,
    private readonly rooms: RoomsService,
    private readonly directory: DirectoryService,
    private readonly teams: TeamsService,
  ) {}

  async create(ctx: RequestContext, input: CreateInput, map: InvitationMap = {}): Promise<CreatedWithInvitations> {
    if (typeof map !== 'object' || map === null || INVITATION_KINDS.some((k) => map[k] !== undefined && !Array.isArray(map[k]))) {
      throw badRequest('invite', 'participants must map users, groups, teams, emails, federated_users and phones to lists');
    }
    if (input.roomType === RoomType.ONE_TO_ONE) {
      // Talk 21+: the other user may come as participants.users[0].
      const first = map.users?.[0];
      return this.creation.create(ctx, { ...input, invite: input.invite || (typeof first === 'string' ? first : '') });
    }
    const wanted = INVITATION_KINDS.filter((k) => (map[k]?.length ?? 0) > 0);
    if (wanted.length === 0) return this.creation.create(ctx, input);

    for (const kind of wanted) {
      const list = map[kind]!;
      if (list.length > INVITATIONS_MAX || list.some((e) => typeof e !== 'string' || e.length > INVITATION_MAX_LENGTH)) {
        throw badRequest('invite', `participants.${kind} takes up to ${INVITATIONS_MAX} entries of up to ${INVITATION_MAX_LENGTH} characters`);
      }
    }
    const valid: InvitationMap = {};
    const invalid: InvitationMap = {};
    for (const kind of wanted) {
      for (const entry of map[kind]!) {
        // Valid invitees once each, as Talk keys them by id; invalid ones as sent.
        if (valid[kind]?.includes(entry)) continue;
        const list = (await this.acceptable(ctx, kind, entry)) ? valid : invalid;
        (list[kind] ??= []).push(entry);
      }
    }
    // The legacy `invite` counts as one more invitee (its own path answers 404 when it is unknown).
    if (Object.keys(valid).length === 0 && input.invite === '') throw notFound('invite', 'None of the participants to invite exists');

    // A valid e-mail invitee makes the conversation public from the start.
    const roomType = valid.emails ? RoomType.PUBLIC : input.roomType;
    const { caller, created } = await this.creation.create(ctx, { ...input, roomType });
    for (const kind of INVITATION_KINDS) {
      for (const entry of valid[kind] ?? []) {
        try {
          await this.participants.add(ctx, caller.room.token, entry, kind);
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          // Refused when added (e.g. a federated server that may not be reached): listed as invalid.
          (invalid[kind] ??= []).push(entry);
        }
      }
    }
    const now = (await this.rooms.lookup(ctx, caller.room.token)) ?? caller;
    const refused = INVITATION_KINDS.filter((k) => invalid[k]?.length);
    return { caller: now, created, invalid: refused.length ? Object.fromEntries(refused.map((k) => [k, invalid[k]!])) : undefined };
  }

  /** Talk's InvitationService checks, one entry at a time. */
  private async acceptable(ctx: RequestContext, kind: InvitationKind, entry: string): Promise<boolean> {
    switch (kind) {
      case 'users':
        return Boolean(await this.directory.users.find(entry));
      case 'groups':
        return Boolean(await this.directory.groups.find(entry));
      case 'teams': {
        // A team the caller is a member of (Talk's getCircle for the current user).
        if (!(await this.teams.find(entry))) return false;
        return (await this.teams.membersOf(entry)).includes(ctx.userId!);
      }
      case 'emails':
        return entry.trim() !== '' && emailProblem(entry.trim()) === null;
      case 'federated_users':
        return federationSwitches(await ctx.config()).enabled && parseCloudId(entry.trim()) !== undefined;
      case 'phones': {
        // Without SIP dial-out for the caller every number is refused, as Talk does.
        const cfg = await ctx.config();
        if (!dialOutEnabled(cfg) || !(await ctx.inGroupList(cfg.list('sip_bridge_groups')))) return false;
        return isE164(entry.replace(/[\s\-().]/g, ''));
      }
    }
  }
}
