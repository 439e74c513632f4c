import { buildSchema, parse } from 'graphql';
import { checkOperationCost, operationCost } from '../../gateway/graphql/parts/cost';

/** Costs are remembered per document by the values of the variables its `limit` arguments read, and only by those. */
describe('list-aware cost, remembered', () => {
  const schema = buildSchema(`
    type Item { id: ID! tags: [String!]! }
    type Page { data: [Item!]! }
    type Query { items(limit: Int, filter: String): Page! }
  `);
  const document = parse('query Q($n: Int, $f: String) { items(limit: $n, filter: $f) { data { id tags } } }');
  const costOf = (variables: Record<string, unknown>) => operationCost(schema, document, 'Q', variables);

  it('answers the cost of the limit asked, whatever the other variables', () => {
    // Remembered first with a small page: a larger page must still be refused.
    expect(() => checkOperationCost(schema, document, 'Q', { n: 2, f: 'a' }, costOf({ n: 2 }))).not.toThrow();
    expect(() => checkOperationCost(schema, document, 'Q', { n: 2000, f: 'a' }, costOf({ n: 2 }))).toThrow(/Query cost/);
    // Another filter, the same page: the same (remembered) cost.
    expect(() => checkOperationCost(schema, document, 'Q', { n: 2, f: 'b' }, costOf({ n: 2 }))).not.toThrow();
    expect(() => checkOperationCost(schema, document, 'Q', { n: 2, f: 'b' }, costOf({ n: 2 }) - 1)).toThrow(/Query cost/);
  });

  it('tells apart a limit given inline in another document', () => {
    const inline = parse('query Q { items(limit: 1000) { data { id } } }');
    expect(() => checkOperationCost(schema, inline, 'Q', {}, 10)).toThrow(/Query cost/);
    expect(() => checkOperationCost(schema, parse('query Q { items(limit: 1) { data { id } } }'), 'Q', {}, 10)).not.toThrow();
  });
});
