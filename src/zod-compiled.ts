/**
 * zod's compiled form of a schema (`z.compile`), made once per schema on first use. Generated code
 * checks a valid value several times faster than zod's interpreter; callers parse again with the
 * schema itself whenever the compiled code rejects, so issues stay exactly the interpreter's. Made
 * lazily because compiling takes milliseconds a program that never uses the schema should not pay.
 */
import { z } from "zod";

const COMPILED = new WeakMap<z.ZodType, z.ZodType>();

export function compiledSchema<S extends z.ZodType>(schema: S): S {
  let found = COMPILED.get(schema);
  if (found === undefined) {
    found = z.compile(schema);
    COMPILED.set(schema, found);
  }
  return found as S;
}
