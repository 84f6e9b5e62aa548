/** How `result.data` is read from the answering response. */
export type ParseMode = 'auto' | 'json' | 'text' | 'none';

/** Parses JSON text; ky's `parseJson` option when the client has one. */
export type JsonParser = (text: string, context: { request: Request; response: Response }) => unknown;

const JSON_TYPE = /\/(?:.*[.+-])?json(?:;|$)/i;

/** True for `application/json`, `application/problem+json`, `…/vnd.api+json`. */
export function isJsonContentType(contentType: string | null): boolean {
  return contentType !== null && JSON_TYPE.test(contentType.replace(/\s/g, ''));
}

/**
 * Reads the body per `mode`. An empty body is `undefined` in every mode but `'text'`;
 * `'none'` leaves the body unread for the caller.
 */
export async function readData(
  response: Response,
  request: Request,
  mode: ParseMode,
  parseJson: JsonParser | undefined,
): Promise<unknown> {
  if (mode === 'none') return undefined;
  const text = await response.text();
  const json = mode === 'json' || (mode === 'auto' && isJsonContentType(response.headers.get('content-type')));
  if (!json) return mode === 'text' || text !== '' ? text : undefined;
  if (text === '') return undefined;
  return parseJson ? parseJson(text, { request, response }) : JSON.parse(text);
}
