/** Versions Parley reports: it speaks the API of Talk 22 on Nextcloud 32. */
export const SERVER_VERSION = { major: 32, minor: 0, micro: 0, string: '32.0.0', edition: '', extendedSupport: false };
export const SERVER_VERSION_FULL = '32.0.0.0';
export const TALK_VERSION = '22.0.0';
export const PRODUCT_NAME = 'Parley';
