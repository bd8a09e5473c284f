/**
 * Response schemas (OCS `data`) of the accounts routes, for the API document. They describe
 * what the presenters and ProvisioningService return; Nextcloud's provisioning_api shapes.
 */
import { Type } from '@sinclair/typebox';

/** PHP's empty array: `data: []` of calls that answer nothing. */

export const UserIds = Type.Object({ users: Type.Array(Type.String()) });
export const GroupIds = Type.Object({ groups: Type.Array(Type.String()) });
export const CreatedUser = Type.Object({ id: Type.String() });
export const AppPassword = Type.Object({ apppassword: Type.String({ description: '72 characters, shown once' }) });

/** Nextcloud's user record (AUserData::getUserData); `*Scope` keys only on the caller's own record. */
export const UserDetails = Type.Object(
  {
    enabled: Type.Boolean(),
    id: Type.String(),
    lastLogin: Type.Integer({ description: 'milliseconds since the epoch; 0 = never' }),
    backend: Type.Literal('Database'),
    subadmin: Type.Array(Type.String()),
    quota: Type.Object({
      free: Type.Number(),
      used: Type.Number(),
      total: Type.Number(),
      relative: Type.Number(),
      quota: Type.Number({ description: '-3: unlimited' }),
    }),
    manager: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    additional_mail: Type.Array(Type.String()),
    displayname: Type.String(),
    'display-name': Type.String(),
    phone: Type.String(),
    address: Type.String(),
    website: Type.String(),
    twitter: Type.String(),
    fediverse: Type.String(),
    organisation: Type.String(),
    role: Type.String(),
    headline: Type.String(),
    biography: Type.String(),
    profile_enabled: Type.String(),
    groups: Type.Array(Type.String()),
    language: Type.String(),
    locale: Type.String(),
    notify_email: Type.Null(),
    backendCapabilities: Type.Object({ setDisplayName: Type.Boolean(), setPassword: Type.Boolean() }),
  },
  { additionalProperties: true },
);
