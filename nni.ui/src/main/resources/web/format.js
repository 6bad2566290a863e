// How values are written on the pages.

export function number(value) {
  if (value === null || value === undefined) {
    return '–';
  }
  if (typeof value !== 'number') {
    return String(value);
  }
  if (Number.isInteger(value) && Math.abs(value) < 1e15) {
    return String(value);
  }
  return Number(value.toPrecision(6)).toString();
}

export function duration(millis) {
  if (millis === null || millis === undefined) {
    return '–';
  }
  let seconds = Math.max(0, Math.round(millis / 1000));
  const days = Math.floor(seconds / 86400);
  seconds -= days * 86400;
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const two = (n) => String(n).padStart(2, '0');
  if (days) {
    return `${days}d ${two(hours)}h`;
  }
  if (hours) {
    return `${hours}h ${two(minutes)}m`;
  }
  if (minutes) {
    return `${minutes}m ${two(seconds)}s`;
  }
  return `${seconds}s`;
}

export function time(millis) {
  if (!millis) {
    return '–';
  }
  const d = new Date(millis);
  const two = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** A parameter value as a person reads it. */
export function value(v) {
  if (v === null || v === undefined) {
    return '–';
  }
  if (typeof v === 'number') {
    return number(v);
  }
  if (typeof v === 'object') {
    return JSON.stringify(v);
  }
  return String(v);
}

export function escape(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

export function status(name) {
  return `<span class="status s-${escape(String(name).toLowerCase())}">${escape(name)}</span>`;
}
