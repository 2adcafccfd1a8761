/**
 * RFC 5545 3.1: content lines longer than 75 octets are folded (CRLF and one space), counting
 * octets of UTF-8, not characters, and never inside a multi-byte character. Both iCalendar
 * writers here (mail parts, calendar feeds) fold by characters; their text is unfolded and folded
 * again by octets.
 */
const LIMIT = 75;

function foldLine(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= LIMIT) return line;
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  // a continuation line starts with the space, which counts
  let room = LIMIT;
  for (const char of line) {
    const size = Buffer.byteLength(char, 'utf8');
    if (octets + size > room) {
      parts.push(current);
      current = '';
      octets = 0;
      room = LIMIT - 1;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

/** The text with every content line folded at 75 octets (CRLF line ends, as RFC 5545 has them). */
export function foldIcs(text: string): string {
  const unfolded = text.replace(/\r?\n[ \t]/g, '');
  const lines = unfolded.split(/\r?\n/);
  const trailing = lines.at(-1) === '' ? lines.pop() : undefined;
  return lines.map(foldLine).join('\r\n') + (trailing === undefined ? '' : '\r\n');
}
