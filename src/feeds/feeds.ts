/**
 * Calendar feeds (docs/provider-links.md): partners create, list and revoke them per provider or resource; the
 * feed URL's token is random and only its SHA-256 is stored, so the URL is shown once, at creation.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Deps } from '../context.js';
import { notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { requireResource } from '../scheduling/repo.js';
import * as repo from './repo.js';

export interface FeedView {
  id: string;
  resourceReference: string | null;
  createdAt: string;
}

export const hashFeedToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** 32 random bytes: unguessable; base64url keeps it a single path segment. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const isFeedToken = (token: string) => TOKEN.test(token);

export const feedUrl = (config: Config, token: string) => `${config.publicBaseUrl}/feeds/${token}.ics`;

const view = (row: repo.FeedRow): FeedView => ({
  id: row.id,
  resourceReference: row.resource_reference,
  createdAt: row.created_at.toISOString(),
});

export async function createFeed(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: { resourceReference?: string | null },
): Promise<FeedView & { url: string }> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const resource =
      input.resourceReference == null ? null : await requireResource(tx, provider.id, input.resourceReference);
    const token = randomBytes(32).toString('base64url');
    const row = await repo.insertFeed(tx, {
      crmId,
      providerId: provider.id,
      resourceId: resource?.id ?? null,
      tokenHash: hashFeedToken(token),
    });
    return { ...view(row), url: feedUrl(deps.config, token) };
  });
}

export async function listFeeds(deps: Deps, crmId: string, providerRef: string): Promise<FeedView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return (await repo.feedsOf(deps.db, provider.id)).map(view);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Deletes the feed: its URL answers 404 from now on. */
export async function revokeFeed(deps: Deps, crmId: string, providerRef: string, id: string): Promise<void> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  if (!UUID.test(id) || !(await repo.deleteFeed(deps.db, provider.id, id)))
    throw notFound(`no calendar feed found with id ${id}`);
}
