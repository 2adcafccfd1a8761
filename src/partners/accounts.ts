import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { retryOnUniqueViolation, type Queryable } from '../storage/db.js';
import * as repo from './repo.js';
import { isBranch, isReference } from './rules.js';

export interface InvoiceAddress {
  city: string;
  countryCode: string;
  street: string;
  number: string;
  zip: string;
}

export interface AccountInput {
  accountReference: string;
  ownerReference: string;
  branch: string;
  invoiceAddress?: InvoiceAddress;
  invoiceContactName?: string | null;
  invoiceCompanyName?: string | null;
  invoiceTaxId?: string | null;
  email?: string | null;
}

export interface AccountView {
  uuid: string;
  accountReference: string;
  ownerReference: string | null;
  branch: string;
  invoiceAddress: InvoiceAddress | null;
  invoiceContactName: string | null;
  invoiceCompanyName: string | null;
  invoiceTaxId: string | null;
  email: string | null;
}

function accountView(row: repo.AccountRow): AccountView {
  return {
    uuid: row.id,
    accountReference: row.reference,
    ownerReference: row.owner_reference,
    branch: row.branch,
    invoiceAddress: (row.invoice_address as InvoiceAddress | null) ?? null,
    invoiceContactName: row.invoice_contact_name,
    invoiceCompanyName: row.invoice_company_name,
    invoiceTaxId: row.invoice_tax_id,
    email: row.email,
  };
}

export function assertBranch(branch: string): void {
  if (!isBranch(branch)) throw notFound(`Unable to find specified branch. Was ${branch}`);
}

export async function requireOwner(db: Queryable, crmId: string, ownerReference: string): Promise<repo.UserRow> {
  const owner = await repo.userByReference(db, crmId, ownerReference);
  if (!owner) throw notFound('no user found for ownerReference');
  return owner;
}

/** C3: a known reference returns the account untouched (200); otherwise it is created (201). */
export async function upsertAccount(
  deps: Deps,
  crmId: string,
  input: AccountInput,
): Promise<{ created: boolean; account: AccountView }> {
  if (!isReference(input.accountReference)) {
    throw new DomainError('NOT_FOUND', `Unable to parse account reference. Was ${input.accountReference}`);
  }
  assertBranch(input.branch);
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const existing = await repo.accountByReference(tx, crmId, input.accountReference);
      if (existing) return { created: false, account: accountView(existing) };
      const owner = await requireOwner(tx, crmId, input.ownerReference);
      await tx.query(
        `INSERT INTO accounts (crm_id, reference, owner_user_id, branch, invoice_address, invoice_contact_name,
           invoice_company_name, invoice_tax_id, email)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9)`,
        [
          crmId,
          input.accountReference,
          owner.id,
          input.branch,
          input.invoiceAddress ? JSON.stringify(input.invoiceAddress) : null,
          input.invoiceContactName ?? null,
          input.invoiceCompanyName ?? null,
          input.invoiceTaxId ?? null,
          input.email ?? null,
        ],
      );
      return { created: true, account: accountView(await repo.accountByReference(tx, crmId, input.accountReference)) };
    }),
  );
}

export async function getAccount(deps: Deps, crmId: string, reference: string): Promise<AccountView> {
  const row = await repo.accountByReference(deps.db, crmId, reference);
  if (!row) throw notFound(`no account found for reference ${reference}`);
  return accountView(row);
}

export type AccountUpdate = Partial<Omit<AccountInput, 'accountReference'>>;

/** PUT on C4's path: the given fields only. */
export async function updateAccount(
  deps: Deps,
  crmId: string,
  reference: string,
  changes: AccountUpdate,
): Promise<AccountView> {
  if (changes.branch !== undefined) assertBranch(changes.branch);
  return deps.db.transaction(async (tx) => {
    const row = await repo.accountByReference(tx, crmId, reference);
    if (!row) throw notFound(`no account found for reference ${reference}`);
    const owner =
      changes.ownerReference !== undefined ? await requireOwner(tx, crmId, changes.ownerReference) : undefined;
    const columns: Record<string, unknown> = {
      owner_user_id: owner?.id,
      branch: changes.branch,
      invoice_address: changes.invoiceAddress === undefined ? undefined : JSON.stringify(changes.invoiceAddress),
      invoice_contact_name: changes.invoiceContactName,
      invoice_company_name: changes.invoiceCompanyName,
      invoice_tax_id: changes.invoiceTaxId,
      email: changes.email,
    };
    const given = Object.entries(columns).filter(([, value]) => value !== undefined);
    if (given.length > 0) {
      const sets = given.map(([column], i) => `${column} = $${i + 2}${column === 'invoice_address' ? '::jsonb' : ''}`);
      await tx.query(`UPDATE accounts SET ${sets.join(', ')} WHERE id = $1`, [
        row.id,
        ...given.map(([, value]) => value),
      ]);
    }
    return accountView(await repo.accountByReference(tx, crmId, reference));
  });
}
