import { describe, expect, it } from 'vitest'
import {
  checkFormatName,
  type FunctionCatalog,
  parseExplainAst,
  readOnlyRefusal,
} from './read-only-sql-check.ts'

// EXPLAIN AST texts as chDB 26.7 prints them, and a small catalog in the shape of system.functions.
const catalog: FunctionCatalog = {
  functions: [
    { name: 'plus', alias_to: '', categories: 'Arithmetic', case_insensitive: 0, is_aggregate: 0 },
    { name: 'count', alias_to: '', categories: 'Aggregate Functions', case_insensitive: 1, is_aggregate: 1 },
    { name: 'lower', alias_to: '', categories: 'String', case_insensitive: 1, is_aggregate: 0 },
    { name: 'lcase', alias_to: 'lower', categories: '', case_insensitive: 1, is_aggregate: 0 },
    { name: 'file', alias_to: '', categories: 'Other', case_insensitive: 0, is_aggregate: 0 },
    { name: 'toTypeName', alias_to: '', categories: 'Other', case_insensitive: 0, is_aggregate: 0 },
    { name: 'hasColumnInTable', alias_to: '', categories: 'Other', case_insensitive: 0, is_aggregate: 0 },
    { name: 'dictGet', alias_to: '', categories: 'Dictionary', case_insensitive: 0, is_aggregate: 0 },
    { name: 'aiGenerate', alias_to: '', categories: 'AI', case_insensitive: 0, is_aggregate: 0 },
  ],
  combinators: ['If', 'State', 'Merge', 'Array'],
}

const ast = (...lines: string[]) => parseExplainAst(lines.join('\n'))
const select = (...expression: string[]) =>
  ast(
    'SelectWithUnionQuery (children 1)',
    ' ExpressionList (children 1)',
    '  SelectQuery (children 1)',
    '   ExpressionList (children 1)',
    ...expression.map((line) => `    ${line}`),
  )
const fromTableFunction = (name: string) =>
  ast(
    'SelectWithUnionQuery (children 1)',
    ' ExpressionList (children 1)',
    '  SelectQuery (children 2)',
    '   ExpressionList (children 1)',
    '    Asterisk',
    '   TablesInSelectQuery (children 1)',
    '    TablesInSelectQueryElement (children 1)',
    '     TableExpression (children 1)',
    `      Function ${name} (alias t) (children 1)`,
    '       ExpressionList (children 1)',
    "        Literal '/etc/passwd'",
  )

describe('parseExplainAst', () => {
  it('reads depth, type and name without alias and children count', () => {
    expect(ast('SelectWithUnionQuery (children 1)', ' Function file (alias x) (children 1)')).toEqual([
      { depth: 0, type: 'SelectWithUnionQuery', detail: '' },
      { depth: 1, type: 'Function', detail: 'file' },
    ])
  })
})

describe('readOnlyRefusal', () => {
  it('answers SELECT with allowed functions, aliases, case-insensitive names and combinators', () => {
    expect(readOnlyRefusal(select('Function plus (children 1)'), catalog)).toBeUndefined()
    expect(readOnlyRefusal(select('Function lcase (children 1)', 'Function COUNT'), catalog)).toBeUndefined()
    expect(
      readOnlyRefusal(select('Function countIf (children 1)', 'Function countStateMerge'), catalog),
    ).toBeUndefined()
    expect(
      readOnlyRefusal(select('Function lambda (children 1)', 'Function toTypeName'), catalog),
    ).toBeUndefined()
    expect(readOnlyRefusal(fromTableFunction('numbers'), catalog)).toBeUndefined()
    expect(readOnlyRefusal(ast('ShowTables (children 1)', ' Identifier system'), catalog)).toBeUndefined()
    expect(
      readOnlyRefusal(ast('Explain EXPLAIN (children 1)', ' SelectWithUnionQuery (children 1)'), catalog),
    ).toBeUndefined()
  })

  it.each([
    'file',
    'url',
    's3',
    'hdfs',
    'remote',
    'remoteSecure',
    'cluster',
    'mysql',
    'postgresql',
    'jdbc',
    'odbc',
    'executable',
    'input',
    'azureBlobStorage',
    'iceberg',
    'deltaLake',
    'merge',
    'dictionary',
  ])('refuses the table function %s()', (name) => {
    expect(readOnlyRefusal(fromTableFunction(name), catalog)).toMatch(
      new RegExp(`table function ${name}\\(\\) is not allowed`),
    )
  })

  it.each(['file', 'hasColumnInTable', 'dictGet', 'aiGenerate', 'fileIf', 'unknownFunction'])(
    'refuses the function %s()',
    (name) => {
      expect(readOnlyRefusal(select(`Function ${name} (children 1)`), catalog)).toMatch(
        `function ${name}() is not allowed`,
      )
    },
  )

  it('refuses DESCRIBE of a table function (it reads the file to infer a schema)', () => {
    const describe = ast(
      'DescribeQuery (children 1)',
      ' TableExpression (children 1)',
      '  Function file (children 1)',
    )
    expect(readOnlyRefusal(describe, catalog)).toMatch('table function file()')
  })

  it('refuses other statements', () => {
    for (const root of ['InsertQuery', 'CreateQuery', 'AlterQuery', 'Set', 'SystemQuery', 'KillQueryQuery'])
      expect(readOnlyRefusal(ast(root), catalog)).toMatch(`not ${root}`)
    expect(readOnlyRefusal(ast('Explain EXPLAIN (children 1)', ' InsertQuery'), catalog)).toMatch(
      'not InsertQuery',
    )
  })

  it('refuses INTO OUTFILE, also under EXPLAIN (a SETTINGS clause is left to readonly = 1)', () => {
    expect(
      readOnlyRefusal(ast('SelectWithUnionQuery (children 2)', ' ExpressionList', ' Set'), catalog),
    ).toBeUndefined()
    expect(
      readOnlyRefusal(
        ast('SelectWithUnionQuery (children 2)', ' ExpressionList', " Literal '/tmp/x'"),
        catalog,
      ),
    ).toMatch('INTO OUTFILE')
    expect(readOnlyRefusal(ast('ShowTables (children 1)', " Literal '/tmp/x'"), catalog)).toMatch(
      'INTO OUTFILE',
    )
    expect(
      readOnlyRefusal(
        ast(
          'Explain EXPLAIN (children 1)',
          ' SelectWithUnionQuery (children 2)',
          '  ExpressionList',
          "  Literal 'x'",
        ),
        catalog,
      ),
    ).toMatch('INTO OUTFILE')
  })

  it('a string literal that holds lines looking like nodes cannot hide a real one', () => {
    // SELECT 'a\nX' INTO OUTFILE 'f': the literal's second line pretends to be a root
    const text = [
      'SelectWithUnionQuery (children 2)',
      ' ExpressionList (children 1)',
      '  SelectQuery (children 1)',
      '   ExpressionList (children 1)',
      "    Literal 'a",
      "X'",
      " Literal 'f'",
    ]
    expect(readOnlyRefusal(ast(...text), catalog)).toMatch('INTO OUTFILE')
  })
})

describe('checkFormatName', () => {
  it('takes format names only', () => {
    expect(() => checkFormatName('JSONEachRow')).not.toThrow()
    expect(() => checkFormatName('TSV; DROP')).toThrow(/not an output format name/)
  })
})
