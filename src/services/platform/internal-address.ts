/**
 * Where a name resolves to, for requests Parley makes to addresses other servers or clients gave
 * it (Web Push endpoints, federated servers): a name that resolves to a private, loopback or
 * link-local address is refused, or such an address could make Parley post into its own network.
 * The address rules are `isInternalAddress` (domain/web-push.ts).
 */
import { lookup } from 'node:dns/promises';
import { isInternalAddress } from '../../domain/web-push.js';

/** Whether `hostname` resolves to a private, loopback or link-local address (any of its addresses). */
export async function resolvesInternally(hostname: string): Promise<boolean> {
  try {
    const addresses = await lookup(hostname.replace(/^\[|\]$/g, ''), { all: true });
    return addresses.some((a) => isInternalAddress(a.address));
  } catch {
    return false; // not resolvable: the request fails on its own and is retried
  }
}
