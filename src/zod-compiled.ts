/**
 * zod's compiled form of a schema (`z.compile`), made once per schema once it is used often enough
 * to pay. Generated code checks a valid value several times faster than zod's interpreter; callers
 * parse again with the schema itself whenever the compiled code rejects, so issues stay exactly the
 * interpreter's. Made lazily, and only from a schema's `USES_BEFORE_COMPILING`th use on, because
 * compiling one takes milliseconds: a program that never uses a schema should not pay them, and one
 * that checks a value or two with it (a package's manifest, a file's `{ file_type, items }`, its one
 * stock class) is done sooner by the interpreter, which accepts and rejects exactly the same values.
 */
import { z } from "zod";

/** Uses of a schema run by the interpreter before it is compiled. */
export const USES_BEFORE_COMPILING = 8;

const COMPILED = new WeakMap<z.ZodType, z.ZodType>();
const USES = new WeakMap<z.ZodType, number>();

/** The form of `schema` to run now: the schema itself for its first uses, then its compiled form. */
export function compiledSchema<S extends z.ZodType>(schema: S): S {
  const found = COMPILED.get(schema);
  if (found !== undefined) return found as S;
  const uses = (USES.get(schema) ?? 0) + 1;
  if (uses < USES_BEFORE_COMPILING) {
    USES.set(schema, uses);
    return schema;
  }
  const compiled = z.compile(schema);
  COMPILED.set(schema, compiled);
  USES.delete(schema);
  return compiled as S;
}
