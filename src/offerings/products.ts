import type { Deps } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { sqlState, type Queryable } from '../storage/db.js';
import { checkQuestions, storedQuestions, type Question, type QuestionInput } from './questions.js';

export interface ProductInput {
  reference: string;
  name: string;
  description?: string | null;
  minDuration?: number | null;
  maxDuration?: number | null;
  leadTimeMinutes?: number | null;
  followUpTimeMinutes?: number | null;
  exclusive?: boolean;
  /** booking questions (DESIGN 7.7); null or [] asks none */
  questions?: QuestionInput[] | null;
}

export type ProductUpdate = Partial<Omit<ProductInput, 'reference'>>;

export interface ProductView {
  uuid: string;
  reference: string;
  name: string;
  description: string | null;
  minDuration: number | null;
  maxDuration: number | null;
  leadTimeMinutes: number | null;
  followUpTimeMinutes: number | null;
  exclusive: boolean;
  questions: Question[];
}

export interface ProductRow {
  id: string;
  crm_id: string;
  provider_id: string;
  reference: string;
  name: string;
  description: string | null;
  min_duration: number | null;
  max_duration: number | null;
  lead_time_minutes: number | null;
  follow_up_time_minutes: number | null;
  exclusive: boolean;
  questions: unknown;
}

export function productView(row: ProductRow): ProductView {
  return {
    uuid: row.id,
    reference: row.reference,
    name: row.name,
    description: row.description,
    minDuration: row.min_duration,
    maxDuration: row.max_duration,
    leadTimeMinutes: row.lead_time_minutes,
    followUpTimeMinutes: row.follow_up_time_minutes,
    exclusive: row.exclusive,
    questions: storedQuestions(row.questions),
  };
}

function assertDurations(
  min: number | null | undefined,
  max: number | null | undefined,
  minLabel = 'body.minDuration',
  maxLabel = 'body.maxDuration',
): void {
  if (min != null && max != null && min > max)
    throw invalid(`${minLabel} must not be greater than ${maxLabel} (${min} > ${max})`);
}

export const productByReference = async (db: Queryable, providerId: string, reference: string) =>
  (
    await db.query<ProductRow>('SELECT * FROM products WHERE provider_id = $1 AND reference = $2', [
      providerId,
      reference,
    ])
  )[0];

/** B1: 201 with the new product; a reference the provider already has is 409. */
export async function createProduct(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: ProductInput,
): Promise<ProductView> {
  assertDurations(input.minDuration, input.maxDuration);
  const questions = checkQuestions(input.questions);
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    if (await productByReference(tx, provider.id, input.reference)) {
      throw conflict(`a product with reference ${input.reference} already exists for provider ${providerRef}`);
    }
    try {
      const [row] = await tx.query<ProductRow>(
        `INSERT INTO products (crm_id, provider_id, reference, name, description, min_duration, max_duration,
           lead_time_minutes, follow_up_time_minutes, exclusive, questions)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
        [
          crmId,
          provider.id,
          input.reference,
          input.name,
          input.description ?? null,
          input.minDuration ?? null,
          input.maxDuration ?? null,
          input.leadTimeMinutes ?? null,
          input.followUpTimeMinutes ?? null,
          input.exclusive ?? false,
          JSON.stringify(questions),
        ],
      );
      return productView(row);
    } catch (err) {
      if (sqlState(err) === '23505')
        throw conflict(`a product with reference ${input.reference} already exists for provider ${providerRef}`);
      throw err;
    }
  });
}

/** B2: every product of the provider, in creation order. */
export async function listProducts(deps: Deps, crmId: string, providerRef: string): Promise<ProductView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const rows = await deps.db.query<ProductRow>(
    'SELECT * FROM products WHERE provider_id = $1 ORDER BY created_at, reference',
    [provider.id],
  );
  return rows.map(productView);
}

const PRODUCT_COLUMNS = {
  name: 'name',
  description: 'description',
  minDuration: 'min_duration',
  maxDuration: 'max_duration',
  leadTimeMinutes: 'lead_time_minutes',
  followUpTimeMinutes: 'follow_up_time_minutes',
  exclusive: 'exclusive',
} as const;

/** POST .../products/{productRef}: the given fields only; null clears an optional field. */
export async function updateProduct(
  deps: Deps,
  crmId: string,
  providerRef: string,
  productRef: string,
  changes: ProductUpdate,
): Promise<ProductView> {
  assertDurations(changes.minDuration, changes.maxDuration);
  const questions = changes.questions === undefined ? undefined : JSON.stringify(checkQuestions(changes.questions));
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const row = await productByReference(tx, provider.id, productRef);
    if (!row) throw notFound(`no product found for reference ${productRef}`);
    const min = changes.minDuration !== undefined ? changes.minDuration : row.min_duration;
    const max = changes.maxDuration !== undefined ? changes.maxDuration : row.max_duration;
    assertDurations(
      min,
      max,
      changes.minDuration !== undefined ? 'body.minDuration' : `the minDuration of product ${productRef}`,
      changes.maxDuration !== undefined ? 'body.maxDuration' : `the maxDuration of product ${productRef}`,
    );
    const sets: string[] = [];
    const params: unknown[] = [row.id];
    for (const [key, column] of Object.entries(PRODUCT_COLUMNS)) {
      const value = changes[key as keyof typeof PRODUCT_COLUMNS];
      if (value === undefined) continue;
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    }
    if (questions !== undefined) {
      params.push(questions);
      sets.push(`questions = $${params.length}`);
    }
    if (sets.length === 0) return productView(row);
    const [updated] = await tx.query<ProductRow>(
      `UPDATE products SET ${sets.join(', ')} WHERE id = $1 RETURNING *`,
      params,
    );
    return productView(updated);
  });
}
