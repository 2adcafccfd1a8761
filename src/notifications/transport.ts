import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Config } from '../config.js';
import type { RenderedMail } from './render.js';

/** One message ready to leave: rendered content plus envelope and the row's stable Message-ID. */
export interface OutgoingMail {
  /** the outbox row id; names the .eml file, so a retry overwrites instead of duplicating */
  id: string;
  createdAt: Date;
  messageId: string;
  from: string;
  to: string;
  content: RenderedMail;
}

/** A message built ahead of sending (prepare), as it goes over the wire. */
export interface PreparedMail {
  envelope: { from: string | false; to: string[] };
  raw: Buffer;
  /** the Message-ID the raw message carries: handed over with it, nodemailer makes up no other */
  messageId: string;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  send(mail: OutgoingMail): Promise<void>;
  /** builds the message ahead (the CPU part), so that handing it over (sendPrepared) follows a reread at once */
  prepare?(mail: OutgoingMail): Promise<PreparedMail>;
  sendPrepared?(prepared: PreparedMail): Promise<void>;
  close(): void;
}

function mailOptions(mail: OutgoingMail) {
  const { content } = mail;
  return {
    from: mail.from,
    to: mail.to,
    subject: content.subject,
    text: content.text,
    html: content.html,
    messageId: mail.messageId,
    date: new Date(),
    headers: { 'Auto-Submitted': 'auto-generated' },
    disableFileAccess: true,
    disableUrlAccess: true,
    ...(content.calendar
      ? {
          icalEvent: {
            method: content.calendar.method,
            filename: content.calendar.method === 'CANCEL' ? 'cancel.ics' : 'invite.ics',
            content: content.calendar.content,
          },
        }
      : {}),
  };
}

/**
 * SMTP through one small connection pool; short timeouts so a hanging server cannot outlast the
 * claim lease. Each message is first built whole in memory by nodemailer's MailComposer (the MIME
 * sendMail would stream, at about 60 % of the CPU) and handed to the connection as one buffer:
 * streamed, its hundred small pieces were a socket write each, the largest part of a mail's CPU
 * time on a busy machine (issue 55).
 */
export function smtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: 2,
    maxMessages: 1000,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const prepare = async (mail: OutgoingMail): Promise<PreparedMail> => {
    const message = new MailComposer(mailOptions(mail)).compile();
    const raw = await new Promise<Buffer>((resolve, reject) =>
      message.build((err, built) => (err ? reject(err) : resolve(built))),
    );
    return { envelope: message.getEnvelope(), raw, messageId: mail.messageId };
  };
  const sendPrepared = async ({ envelope, raw, messageId }: PreparedMail) =>
    void (await transporter.sendMail({ envelope, raw, messageId }));
  return {
    kind: 'smtp',
    prepare,
    sendPrepared,
    send: async (mail) => sendPrepared(await prepare(mail)),
    close: () => transporter.close(),
  };
}

/** Without SMTP_URL: each mail becomes DATA_DIR/mail/{created}-{id}.eml, written atomically. */
export function fileTransport(dir: string): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'file',
    async send(mail) {
      const info = await transporter.sendMail(mailOptions(mail));
      await mkdir(dir, { recursive: true });
      const stamp = mail.createdAt
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
      const target = join(dir, `${stamp}-${mail.id}.eml`);
      const partial = `${target}.partial`;
      await writeFile(partial, info.message as Buffer);
      await rename(partial, target);
    },
    close: () => undefined,
  };
}

export function mailDir(config: Pick<Config, 'dataDir'>): string {
  return resolve(config.dataDir, 'mail');
}

export function transportFor(config: Pick<Config, 'smtpUrl' | 'dataDir'>): MailTransport {
  return config.smtpUrl ? smtpTransport(config.smtpUrl) : fileTransport(mailDir(config));
}
