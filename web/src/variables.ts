// The server's own variable-schema rules (src/domain/prompts/variables.ts), shared so that the schema editor
// and the render form treat required, default and allowed values exactly as the server does.
export {
  describeVariable,
  mustSupply,
  type VariableSchema,
  type VariableSpec,
} from '../../src/domain/prompts/variables';
