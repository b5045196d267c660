import { type Static, Type } from 'typebox';
import { Money } from '../../domain/line-items.ts';
import { listQuery } from '../../db/list-query.ts';
import { CsvIds, Id, Nullable, Str, Text, Timestamp } from '../../kernel/schemas.ts';

export const SERVICE_TYPES = ['service', 'product'] as const;
const Name = Type.String({ minLength: 1, maxLength: 255 });

const optionalFields = {
  description: Type.Optional(Nullable(Text(5000))),
  price: Type.Optional(Money),
  sku: Type.Optional(Nullable(Str(100))),
  type: Type.Optional(Type.Enum([...SERVICE_TYPES])),
  taxable: Type.Optional(Type.Boolean()),
};
export const ServiceCreate = Type.Object({ name: Name, ...optionalFields });
export const ServiceUpdate = Type.Object({ name: Type.Optional(Name), ...optionalFields });
export type ServiceCreate = Static<typeof ServiceCreate>;
export type ServiceUpdate = Static<typeof ServiceUpdate>;

export const Service = Type.Object({
  id: Id,
  workspace_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  price: Type.Number(),
  sku: Nullable(Type.String()),
  type: Type.String(),
  taxable: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Service = Static<typeof Service>;

export const SERVICE_SORT = ['id', 'name', 'price', 'sku', 'type', 'created_at', 'updated_at'] as const;
export const ServiceQuery = listQuery(SERVICE_SORT, {
  id_in: Type.Optional(CsvIds),
});
export type ServiceQuery = Static<typeof ServiceQuery>;
