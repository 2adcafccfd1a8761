/** A mail's content before it is written out as plain text and as HTML. */
export interface MailDoc {
  lang: string;
  subject: string;
  greeting: string;
  paragraphs: string[];
  details: [label: string, value: string][];
  /** the consumer's answers to the booking questions, under a heading */
  answers?: { heading: string; rows: [label: string, value: string][] } | null;
  message: { heading: string; text: string } | null;
  link: { intro: string; label: string; url: string } | null;
  note: string | null;
  closing: string[];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Escaped text with its line breaks kept. */
const htmlLines = (text: string) => escapeHtml(text).replace(/\r?\n/g, '<br>');

export function toText(doc: MailDoc): string {
  const blocks: string[] = [doc.greeting, ...doc.paragraphs];
  if (doc.details.length > 0) {
    const width = Math.max(...doc.details.map(([label]) => label.length)) + 1;
    blocks.push(
      doc.details
        .map(([label, value]) => `${`${label}:`.padEnd(width)} ${value.replace(/\n/g, `\n${' '.repeat(width + 1)}`)}`)
        .join('\n'),
    );
  }
  if (doc.answers) {
    const rows = doc.answers.rows.map(([label, value]) => `- ${label}: ${value.replace(/\r?\n/g, '\n  ')}`);
    blocks.push(`${doc.answers.heading}:\n${rows.join('\n')}`);
  }
  if (doc.message)
    blocks.push(
      `${doc.message.heading}:\n${doc.message.text
        .split(/\r?\n/)
        .map((l) => `> ${l}`)
        .join('\n')}`,
    );
  if (doc.link) blocks.push(`${doc.link.intro}\n${doc.link.url}`);
  if (doc.note) blocks.push(doc.note);
  blocks.push(doc.closing.join('\n'));
  return `${blocks.join('\n\n')}\n`;
}

const P = 'margin:0 0 16px 0';

const BODY_STYLE =
  'margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#222';
const QUOTE_STYLE = 'padding:8px 12px;border-left:3px solid #ccc';
const BUTTON_STYLE =
  'display:inline-block;margin-top:8px;padding:8px 16px;background:#b00020;color:#fff;text-decoration:none;' +
  'border-radius:4px';

/** Label/value rows as an HTML table (a label's cell on the left, the value's lines on the right). */
function htmlTable(rows: [label: string, value: string][]): string {
  const th = 'align="left" valign="top" style="padding:4px 16px 4px 0;font-weight:600"';
  const trs = rows.map(
    ([label, value]) =>
      `<tr><th ${th}>${escapeHtml(label)}</th><td style="padding:4px 0">${htmlLines(value)}</td></tr>`,
  );
  const table = 'role="presentation" cellspacing="0" cellpadding="0"';
  return `<table ${table} style="${P};border-collapse:collapse">${trs.join('')}</table>`;
}

export function toHtml(doc: MailDoc): string {
  const parts: string[] = [`<p style="${P}">${htmlLines(doc.greeting)}</p>`];
  for (const p of doc.paragraphs) parts.push(`<p style="${P}">${htmlLines(p)}</p>`);
  if (doc.details.length > 0) parts.push(htmlTable(doc.details));
  if (doc.answers) {
    parts.push(
      `<p style="margin:0 0 4px 0;font-weight:600">${escapeHtml(doc.answers.heading)}</p>` +
        htmlTable(doc.answers.rows),
    );
  }
  if (doc.message) {
    parts.push(
      `<p style="margin:0 0 4px 0;font-weight:600">${escapeHtml(doc.message.heading)}</p>` +
        `<blockquote style="${P};${QUOTE_STYLE}">${htmlLines(doc.message.text)}</blockquote>`,
    );
  }
  if (doc.link) {
    const url = escapeHtml(doc.link.url);
    parts.push(
      `<p style="${P}">${escapeHtml(doc.link.intro)}<br>` +
        `<a href="${url}" style="${BUTTON_STYLE}">${escapeHtml(doc.link.label)}</a>` +
        `<br><span style="font-size:12px;color:#666">${url}</span></p>`,
    );
  }
  if (doc.note) parts.push(`<p style="${P};color:#555">${htmlLines(doc.note)}</p>`);
  parts.push(`<p style="${P}">${doc.closing.map(escapeHtml).join('<br>')}</p>`);
  return (
    `<!DOCTYPE html>\n<html lang="${escapeHtml(doc.lang)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(doc.subject)}</title></head>` +
    `<body style="${BODY_STYLE}">` +
    `${parts.join('\n')}</body></html>\n`
  );
}
