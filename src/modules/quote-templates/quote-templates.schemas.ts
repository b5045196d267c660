import { type Static, Type } from 'typebox';
import { pricingInput, pricingOutput } from '../../domain/line-items.ts';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Str, Text, Timestamp, UserRef } from '../../kernel/schemas.ts';

const TemplateName = Type.String({ minLength: 1, maxLength: 255 });

const fields = {
  name: Type.Optional(Nullable(Str())),
  description: Type.Optional(Nullable(Text(5000))),
  message: Type.Optional(Nullable(Text())),
  payment_instructions: Type.Optional(Nullable(Text())),
  ...pricingInput,
};
export const TemplateCreate = Type.Object({ template_name: TemplateName, ...fields });
export const TemplateUpdate = Type.Object({ template_name: Type.Optional(TemplateName), ...fields });
export type TemplateCreate = Static<typeof TemplateCreate>;
export type TemplateUpdate = Static<typeof TemplateUpdate>;

export const TaxRateObj = Type.Object({ id: Id, name: Type.String(), rate: Type.Number() });

/** List items and the single GET alike carry `tax_rate_obj` and `created_by` (SPEC). */
export const QuoteTemplate = Type.Object({
  id: Id,
  workspace_id: Id,
  template_name: Type.String(),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  message: Nullable(Type.String()),
  payment_instructions: Nullable(Type.String()),
  ...pricingOutput,
  tax_rate_obj: Nullable(TaxRateObj),
  created_by: Nullable(UserRef),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type QuoteTemplate = Static<typeof QuoteTemplate>;

// SPEC list filters; `modified_at` is `updated_at`; search covers the template name.
export const TEMPLATE_SORT = ['id', 'template_name', 'total', 'created_at', 'modified_at'] as const;
export const TemplateQuery = listQuery(TEMPLATE_SORT, {});
export type TemplateQuery = Static<typeof TemplateQuery>;
