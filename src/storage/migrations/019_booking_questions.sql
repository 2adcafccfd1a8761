-- Migration 019: booking questions (issue 35, DESIGN 7.7). Schema only.

-- A product's questions, as B1 and the product update store them: [{key, type, required, label {de, en},
-- options?, maxLength?}] (offerings/questions.ts checks them).
ALTER TABLE products ADD COLUMN questions jsonb NOT NULL DEFAULT '[]'::jsonb;

-- A participation's answers, with each question's label as it was at booking time:
-- [{key, label {de, en}, value}]. NULL: none asked or none given; the consumer-data erasure nulls it.
ALTER TABLE participations ADD COLUMN answers jsonb;
