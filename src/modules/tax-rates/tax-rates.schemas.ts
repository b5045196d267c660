import { type Static, Type } from 'typebox';
import { Percent } from '../../domain/line-items.ts';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Text, Timestamp } from '../../kernel/schemas.ts';

const Name = Type.String({ minLength: 1, maxLength: 255 });

export const TaxRateCreate = Type.Object({
  name: Name,
  description: Type.Optional(Nullable(Text(5000))),
  rate: Percent,
});
export const TaxRateUpdate = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Nullable(Text(5000))),
  rate: Type.Optional(Percent),
});
export type TaxRateCreate = Static<typeof TaxRateCreate>;
export type TaxRateUpdate = Static<typeof TaxRateUpdate>;

export const TaxRate = Type.Object({
  id: Id,
  workspace_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  rate: Type.Number(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TaxRate = Static<typeof TaxRate>;

// SPEC list filters; `modified_at` is `updated_at`.
export const TAX_RATE_SORT = ['id', 'name', 'rate', 'created_at', 'modified_at'] as const;
export const TaxRateQuery = listQuery(TAX_RATE_SORT, {});
export type TaxRateQuery = Static<typeof TaxRateQuery>;
