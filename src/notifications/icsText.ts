/**
 * RFC 5545 3.1: content lines longer than 75 octets are folded (CRLF and one space), counting
 * octets of UTF-8, never inside a multi-byte character. The calendars here (mail parts, calendar
 * feeds) are written by ical-generator and folded here (calendarText).
 */
import type { ICalCalendar } from 'ical-generator';

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
function foldIcs(text: string): string {
  const unfolded = text.replace(/\r?\n[ \t]/g, '');
  const lines = unfolded.split(/\r?\n/);
  const trailing = lines.at(-1) === '' ? lines.pop() : undefined;
  return lines.map(foldLine).join('\r\n') + (trailing === undefined ? '' : '\r\n');
}

/**
 * The calendar's iCalendar text, every content line folded at 75 octets and ending in CRLF except
 * the last, as ical-generator's toString() gives it. The library folds its whole text with one
 * TextEncoder per character (0.6 ms for a mail's single event, seconds for a large feed), so it
 * folds only the calendar's own few lines here, from the calendar without its events, and the
 * events' lines, which it leaves unfolded, are set in before END:VCALENDAR and folded by
 * foldIcs. The calendar keeps its events. Custom X- properties of the calendar (none here) would
 * come before the events.
 */
export function calendarText(calendar: ICalCalendar): string {
  const events = calendar.events();
  const frame = calendar.clear().toString();
  calendar.events(events);
  const end = frame.lastIndexOf('END:VCALENDAR');
  return foldIcs(frame.slice(0, end) + events.map((event) => event.toString()).join('') + frame.slice(end));
}
