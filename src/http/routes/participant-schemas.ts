/**
 * Response schemas of the participants area, for the API document (GET /openapi.json). They
 * describe the `data` member only; they do not filter what is sent.
 */
import { Type } from '@sinclair/typebox';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** Contract "Participant" record (docs/reference/participants.md#the-participant-record). */
const ParticipantSchema = Type.Object({
  roomToken: Type.String(),
  inCall: Type.Integer(),
  lastPing: Type.Integer(),
  sessionIds: Type.Array(Type.String({ maxLength: 512 })),
  participantType: Type.Integer(),
  attendeeId: Type.Integer(),
  actorId: Type.String(),
  actorType: Type.String(),
  displayName: Type.String(),
  permissions: Type.Integer(),
  attendeePermissions: Type.Integer(),
  attendeePin: Type.String(),
  phoneNumber: Type.String(),
  callId: Type.String(),
  invitedActorId: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  statusIcon: Type.Optional(NullableString),
  statusMessage: Type.Optional(NullableString),
  statusClearAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});

export const ParticipantListSchema = Type.Array(ParticipantSchema);

import { EmptyList } from './common-schemas.js';

export { EmptyList, NullData } from './common-schemas.js';
export const AddResult = Type.Union([Type.Object({ type: Type.Integer() }), EmptyList]);

/** Nextcloud's private user status record. */
export const OwnStatusSchema = Type.Object({
  userId: Type.String(),
  message: NullableString,
  messageId: NullableString,
  messageIsPredefined: Type.Boolean(),
  icon: NullableString,
  clearAt: Type.Union([Type.Integer(), Type.Null()]),
  status: Type.String(),
  statusIsUserDefined: Type.Boolean(),
});
