/**
 * Where the status route lives unless the app says otherwise (PROTOCOL.md § 8): `GET
 * <statusPath>/<id>` reads an intent, `DELETE <statusPath>/<id>` stops it (§ 14.8). The
 * server's `statusPath`, the client's stop and the AI SDK transport default to it alike.
 */
export const DEFAULT_STATUS_PATH = '/api/status';
