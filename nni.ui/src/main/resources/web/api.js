// The JSON routes the pages read: the UI's own (/api/v1/nni-ui/) and NNI's REST API (/api/v1/nni/),
// through which the pages change experiments as nnictl does.

export const UI = '/api/v1/nni-ui';
export const NNI = '/api/v1/nni';

/** A request the server answered with an error: its status and its {"error": "..."} message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function answer(response) {
  if (response.status === 401) {
    // the runtime asks for its login token: the login page brings the user back here
    location.href = '/login?next=' + encodeURIComponent(location.pathname + location.hash);
    throw new ApiError(401, 'login required');
  }
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (e) {
    body = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, (body && body.error) || `${response.status} ${response.statusText}`);
  }
  return body;
}

export async function get(path) {
  return answer(await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }));
}

export async function send(method, path, body) {
  return answer(await fetch(path, {
    method,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
}

/** The query string of an object, leaving out empty values. */
export function query(parameters) {
  const pairs = Object.entries(parameters).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return pairs.length ? '?' + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&') : '';
}
