import { ClusterDdlError } from './clickhouse-errors.ts'
import {
  type Catalog,
  type ClusterLayout,
  everywhereArguments,
  localSuffix,
  replicableEngines,
  replicatedArguments,
  shardingKey,
  type TableKind,
} from './cluster-ddl-layout.ts'
import { closingParen, codeMask, excerpt, splitTopLevel, withoutSettings } from './cluster-ddl-text.ts'

// Cluster mode (CLICKHOUSE_CLUSTER): the migrations' single-server DDL rewritten, statement by
// statement, into DDL for a sharded and replicated ClickHouse cluster. Pure: text in, text out, so
// every generated statement can be parsed by the engine in unit tests (EXPLAIN AST).
//
// The layout: each base table and feed of the migrations becomes `<table>_local` on every node
// (Replicated* engine, or Null for a feed) and, under its contract name, a Distributed table over
// those, so users' SQL, the views and the dashboards read the whole cluster unchanged. A table
// without a session_id column (an audit, a list) cannot be sharded by conversation: it is kept
// whole on every node under its own name. Writes go
// through the Distributed tables, which place each row on the shard of cityHash64(session_id): every
// row of a conversation, every delivery of it and its tombstones land on one shard, so
// ReplacingMergeTree's FINAL per shard is FINAL of the cluster, and a write split across shards is
// split the same way when retried, each shard dropping the sub-block it already has under the
// write's insert_deduplication_token (docs/scaling.md, "Cluster mode").
//
// A statement of a kind this file does not know is refused with a ClusterDdlError: wrong DDL is
// never emitted silently. Migrations name their tables `{database}.name`; that is what is rewritten.
// The names and engine arguments are cluster-ddl-layout.ts's, the reading of SQL text
// cluster-ddl-text.ts's; here, per statement, what its cluster form is.

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Translates a sequence of migration statements, one at a time, remembering what each created: the
 * cluster form of a statement depends on what its tables are (sharded, replicated, a view).
 */
export class ClusterDdl {
  private readonly layout: ClusterLayout
  private readonly catalog = new Map<string, TableKind>()
  private readonly onCluster: string
  private readonly qualified: RegExp

  constructor(layout: ClusterLayout, catalog: Catalog = new Map()) {
    this.layout = layout
    if (!identifier.test(layout.cluster))
      throw new ClusterDdlError(`cluster name ${JSON.stringify(layout.cluster)} is not a plain identifier`)
    if (!identifier.test(layout.database))
      throw new ClusterDdlError(`database ${JSON.stringify(layout.database)} is not a plain identifier`)
    for (const [name, kind] of catalog) this.catalog.set(name, kind)
    this.onCluster = `ON CLUSTER ${layout.cluster}`
    this.qualified = new RegExp(`\\b${layout.database}\\.([A-Za-z_][A-Za-z0-9_]*)\\b`, 'g')
  }

  /** What each name is after the statements translated so far. */
  get tables(): Catalog {
    return new Map(this.catalog)
  }

  /** The cluster statements for one statement of a migration, in the order to run them. */
  translate(statement: string): string[] {
    const text = statement.trim()
    const head = codeMask(text).replace(/\s+/g, ' ').trimStart().toUpperCase()
    if (/^CREATE (OR REPLACE )?MATERIALIZED VIEW\b/.test(head)) return this.materializedView(text)
    if (/^CREATE (OR REPLACE )?VIEW\b/.test(head)) return this.view(text)
    if (/^CREATE (OR REPLACE )?DICTIONARY\b/.test(head)) return this.dictionary(text)
    if (/^CREATE TABLE\b/.test(head)) return this.createTable(text)
    if (/^ALTER TABLE\b/.test(head)) return this.alter(text)
    if (/^EXCHANGE TABLES\b/.test(head)) return this.exchange(text)
    if (/^RENAME TABLE\b/.test(head)) return this.rename(text)
    if (/^DROP (TABLE|VIEW)\b/.test(head)) return this.drop(text)
    if (/^INSERT INTO\b/.test(head)) return this.insertSelect(text)
    if (/^TRUNCATE TABLE\b/.test(head)) return this.truncate(text)
    if (/^OPTIMIZE TABLE\b/.test(head)) return this.optimize(text)
    if (/^SELECT\b/.test(head)) return [this.check(text)]
    throw new ClusterDdlError(`cluster mode does not know this kind of statement: ${excerpt(text)}`)
  }

  private local = (name: string) => `${name}${localSuffix}`
  private name = (table: string) => `${this.layout.database}.${table}`

  /** `<database>.<name>` at the start of a text: the name, or an error naming what was expected. */
  private tableName(text: string, what: string): string {
    const match = new RegExp(`^${this.layout.database}\\.([A-Za-z_][A-Za-z0-9_]*)\\b`).exec(text.trim())
    if (!match)
      throw new ClusterDdlError(`expected ${what} as ${this.layout.database}.<name> in: ${excerpt(text)}`)
    return match[1]!
  }

  private kindOf(table: string, statement: string): TableKind {
    const kind = this.catalog.get(table)
    if (!kind)
      throw new ClusterDdlError(
        `${this.name(table)} is not a table the migrations created before: ${excerpt(statement)}`,
      )
    return kind
  }

  /** The Distributed table under the contract name, over the shards' local tables. */
  private distributedTable(table: string, create = 'CREATE TABLE IF NOT EXISTS'): string {
    const { cluster, database } = this.layout
    return (
      `${create} ${this.name(table)} ${this.onCluster} AS ${this.name(this.local(table))}\n` +
      `ENGINE = Distributed(${cluster}, ${database}, ${this.local(table)}, ${shardingKey})`
    )
  }

  private createTable(text: string): string[] {
    const match = /^CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?/i.exec(text)!
    const ifNotExists = match[1] ? 'IF NOT EXISTS ' : ''
    const afterKeyword = text.slice(match[0].length)
    const table = this.tableName(afterKeyword, 'the new table')
    if (this.catalog.has(table) && !ifNotExists)
      throw new ClusterDdlError(`${this.name(table)} exists already: ${excerpt(text)}`)
    let rest = afterKeyword.trim().slice(this.name(table).length).trim()
    let structure: string
    let kind: TableKind
    if (rest.startsWith('(')) {
      const close = closingParen(rest, 0)
      const columns = rest.slice(1, close)
      kind = splitTopLevel(columns).some((column) => /^session_id\s/.test(column)) ? 'sharded' : 'replicated'
      structure = rest.slice(0, close + 1)
      rest = rest.slice(close + 1).trim()
    } else if (/^AS\s/i.test(rest)) {
      rest = rest.slice(2).trim()
      const source = this.tableName(rest, 'the table to copy the structure of')
      kind = this.kindOf(source, text)
      if (kind !== 'sharded' && kind !== 'replicated')
        throw new ClusterDdlError(`CREATE TABLE … AS ${this.name(source)}: not a table: ${excerpt(text)}`)
      structure = `AS ${this.name(kind === 'sharded' ? this.local(source) : source)}`
      rest = rest.slice(this.name(source).length).trim()
    } else {
      throw new ClusterDdlError(`CREATE TABLE without a column list or AS <table>: ${excerpt(text)}`)
    }
    if (/\bAS\s+SELECT\b/i.test(codeMask(rest)))
      throw new ClusterDdlError(`CREATE TABLE … AS SELECT is not supported in cluster mode: ${excerpt(text)}`)
    const engine = /^ENGINE\s*=\s*([A-Za-z]+)\s*(\()?/i.exec(rest)
    if (!engine)
      throw new ClusterDdlError(`CREATE TABLE without ENGINE = right after its structure: ${excerpt(text)}`)
    const engineName = engine[1]!
    let engineClause: string
    let tail: string
    if (engineName === 'Null') {
      if (kind !== 'sharded')
        throw new ClusterDdlError(
          `${this.name(table)}: a Null feed needs a session_id column, the key its rows are sent to a shard by`,
        )
      engineClause = 'ENGINE = Null'
      tail = rest.slice(engine[0].length - (engine[2] ? 1 : 0)).trim()
      if (engine[2]) tail = tail.slice(closingParen(tail, 0) + 1).trim()
    } else if (replicableEngines.has(engineName)) {
      let args = ''
      tail = rest.slice(engine[0].length - (engine[2] ? 1 : 0)).trim()
      if (engine[2]) {
        const close = closingParen(tail, 0)
        args = tail.slice(1, close).trim()
        tail = tail.slice(close + 1).trim()
      }
      const where = kind === 'sharded' ? replicatedArguments : everywhereArguments
      engineClause = `ENGINE = Replicated${engineName}(${where}${args ? `, ${args}` : ''})`
    } else {
      throw new ClusterDdlError(
        `engine ${engineName} has no cluster form here (MergeTree family or Null): ${excerpt(text)}`,
      )
    }
    // Replicated tables deduplicate inserts by their own window; the non-replicated one means nothing.
    tail = tail.replace(/\bnon_replicated_deduplication_window\b/g, 'replicated_deduplication_window')
    this.catalog.set(table, kind)
    const stored = kind === 'sharded' ? this.local(table) : table
    const create = `CREATE TABLE ${ifNotExists}${this.name(stored)} ${this.onCluster} ${structure}\n${engineClause}${tail ? `\n${tail}` : ''}`
    if (kind === 'replicated') return [create]
    return [create, this.distributedTable(table, `CREATE TABLE ${ifNotExists}`.trim())]
  }

  /** `CREATE [OR REPLACE] [MATERIALIZED] VIEW [IF NOT EXISTS] <db.name>` and the text after the name. */
  private viewHead(text: string): { prefix: string; table: string; rest: string } {
    const match = /^CREATE\s+(OR\s+REPLACE\s+)?(MATERIALIZED\s+)?VIEW\s+(IF\s+NOT\s+EXISTS\s+)?/i.exec(text)!
    const table = this.tableName(text.slice(match[0].length), 'the view')
    return {
      prefix: match[0].replace(/\s+/g, ' ').trim(),
      table,
      rest: text.slice(match[0].length).trim().slice(this.name(table).length).trim(),
    }
  }

  /** A view reads the Distributed tables under their contract names: only ON CLUSTER is added. */
  private view(text: string): string[] {
    const { prefix, table, rest } = this.viewHead(text)
    if (!/^AS\s/i.test(rest)) throw new ClusterDdlError(`CREATE VIEW without AS SELECT: ${excerpt(text)}`)
    this.catalog.set(table, 'view')
    return [`${prefix} ${this.name(table)} ${this.onCluster} ${rest}`]
  }

  /**
   * A dictionary on every node, loaded there from its source query (which reads the tables under
   * their contract names, as views do): only ON CLUSTER is added. Queries name it like a view.
   */
  private dictionary(text: string): string[] {
    const match = /^CREATE\s+(OR\s+REPLACE\s+)?DICTIONARY\s+(IF\s+NOT\s+EXISTS\s+)?/i.exec(text)!
    const name = this.tableName(text.slice(match[0].length), 'the dictionary')
    const rest = text.slice(match[0].length).trim().slice(this.name(name).length).trim()
    if (!/^\(/.test(rest))
      throw new ClusterDdlError(`CREATE DICTIONARY without its attributes: ${excerpt(text)}`)
    this.catalog.set(name, 'view')
    return [`${match[0].replace(/\s+/g, ' ').trim()} ${this.name(name)} ${this.onCluster} ${rest}`]
  }

  /**
   * A materialized view fires on the node that takes the insert: one on every shard, over the local
   * feed, writing the local target, so what a shard's feed takes stays on that shard.
   */
  private materializedView(text: string): string[] {
    const { prefix, table, rest } = this.viewHead(text)
    const to = /^TO\s+/i.exec(rest)
    if (!to)
      throw new ClusterDdlError(
        `a materialized view needs TO <table> in cluster mode (no inner table): ${excerpt(text)}`,
      )
    const target = this.tableName(rest.slice(to[0].length), 'the view target')
    const targetKind = this.kindOf(target, text)
    if (targetKind !== 'sharded' && targetKind !== 'replicated')
      throw new ClusterDdlError(`materialized view ${this.name(table)} writes into a view: ${excerpt(text)}`)
    const query = rest.slice(to[0].length).trim().slice(this.name(target).length).trim()
    if (!/^AS\s/i.test(query))
      throw new ClusterDdlError(`materialized view without AS SELECT: ${excerpt(text)}`)
    for (const [, name] of codeMask(query).matchAll(
      /\b(?:FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*[.(])/gi,
    ))
      if (name!.toUpperCase() !== 'SELECT')
        throw new ClusterDdlError(
          `materialized view ${this.name(table)} reads ${name} without its database: name it ${this.layout.database}.${name}`,
        )
    const localQuery = this.replaceNames(query, (name) => {
      const kind = this.kindOf(name, text)
      if (kind === 'replicated') return this.name(name)
      if (kind !== 'sharded')
        throw new ClusterDdlError(
          `materialized view ${this.name(table)} reads the view ${this.name(name)}: read its tables`,
        )
      return this.name(this.local(name))
    })
    this.catalog.set(table, 'materialized-view')
    const into = targetKind === 'sharded' ? this.local(target) : target
    return [`${prefix} ${this.name(table)} ${this.onCluster} TO ${this.name(into)} ${localQuery}`]
  }

  /** Every `<database>.<name>` outside string literals, replaced. */
  private replaceNames(text: string, replace: (name: string) => string): string {
    const mask = codeMask(text)
    let out = ''
    let last = 0
    for (const match of mask.matchAll(this.qualified)) {
      out += text.slice(last, match.index) + replace(match[1]!)
      last = match.index + match[0].length
    }
    return out + text.slice(last)
  }

  private alter(text: string): string[] {
    const match = /^ALTER\s+TABLE\s+/i.exec(text)!
    const table = this.tableName(text.slice(match[0].length), 'the altered table')
    const after = text.slice(match[0].length).trim().slice(this.name(table).length).trim()
    const kind = this.kindOf(table, text)
    if (kind === 'materialized-view')
      throw new ClusterDdlError(`ALTER of a materialized view: drop and create it again: ${excerpt(text)}`)
    if (kind !== 'sharded') return [`ALTER TABLE ${this.name(table)} ${this.onCluster} ${after}`]
    const { body, settings } = withoutSettings(after)
    const commands = splitTopLevel(body)
    const distributedCommands = commands.filter((command) => {
      const words = command.replace(/\s+/g, ' ').toUpperCase()
      if (/^(ADD|DROP|MODIFY|RENAME|COMMENT) COLUMN\b/.test(words)) return true
      if (
        /^(ADD|DROP|MATERIALIZE|CLEAR) (INDEX|PROJECTION|STATISTICS)\b|^(MATERIALIZE|CLEAR) COLUMN\b|^(MODIFY|REMOVE) TTL\b|^MATERIALIZE TTL\b|^(MODIFY|RESET) SETTING\b|^MODIFY ORDER BY\b|^(ADD|DROP) CONSTRAINT\b|^DELETE WHERE\b|^UPDATE\b/.test(
          words,
        )
      )
        return false
      throw new ClusterDdlError(`cluster mode does not know this ALTER command: ${excerpt(command)}`)
    })
    const suffix = settings ? `\nSETTINGS ${settings}` : ''
    const statements = [`ALTER TABLE ${this.name(this.local(table))} ${this.onCluster}\n    ${body}${suffix}`]
    // The Distributed table holds no data, only the columns it reads and writes.
    if (distributedCommands.length > 0)
      statements.push(
        `ALTER TABLE ${this.name(table)} ${this.onCluster}\n    ${distributedCommands.join(',\n    ')}`,
      )
    return statements
  }

  private exchange(text: string): string[] {
    const match = new RegExp(
      `^EXCHANGE\\s+TABLES\\s+${this.layout.database}\\.(\\w+)\\s+AND\\s+${this.layout.database}\\.(\\w+)\\s*$`,
      'i',
    ).exec(text)
    if (!match) throw new ClusterDdlError(`cannot read this EXCHANGE TABLES: ${excerpt(text)}`)
    const [a, b] = [match[1]!, match[2]!]
    const kinds = [this.kindOf(a, text), this.kindOf(b, text)]
    if (kinds[0] !== kinds[1]) throw new ClusterDdlError(`EXCHANGE of a table with a view: ${excerpt(text)}`)
    if (kinds[0] !== 'sharded')
      return [`EXCHANGE TABLES ${this.name(a)} AND ${this.name(b)} ${this.onCluster}`]
    // The shards' tables change places; each Distributed table keeps pointing at its name's local
    // table and is made again from it, so its columns are those of the data it now reads.
    return [
      `EXCHANGE TABLES ${this.name(this.local(a))} AND ${this.name(this.local(b))} ${this.onCluster}`,
      this.distributedTable(a, 'CREATE OR REPLACE TABLE'),
      this.distributedTable(b, 'CREATE OR REPLACE TABLE'),
    ]
  }

  private rename(text: string): string[] {
    const pairs = splitTopLevel(text.replace(/^RENAME\s+TABLE\s+/i, '')).map((pair) => {
      const match = new RegExp(
        `^${this.layout.database}\\.(\\w+)\\s+TO\\s+${this.layout.database}\\.(\\w+)$`,
        'i',
      ).exec(pair)
      if (!match) throw new ClusterDdlError(`cannot read this RENAME TABLE: ${excerpt(text)}`)
      return [match[1]!, match[2]!] as const
    })
    const statements: string[] = []
    for (const [from, to] of pairs) {
      const kind = this.kindOf(from, text)
      if (this.catalog.has(to)) throw new ClusterDdlError(`RENAME onto ${this.name(to)}, which exists`)
      this.catalog.delete(from)
      this.catalog.set(to, kind)
      if (kind !== 'sharded') {
        statements.push(`RENAME TABLE ${this.name(from)} TO ${this.name(to)} ${this.onCluster}`)
        continue
      }
      // A Distributed table names its local table in its engine: made again for the new name.
      statements.push(
        `RENAME TABLE ${this.name(this.local(from))} TO ${this.name(this.local(to))} ${this.onCluster}`,
        `DROP TABLE IF EXISTS ${this.name(from)} ${this.onCluster}`,
        this.distributedTable(to),
      )
    }
    return statements
  }

  private drop(text: string): string[] {
    const match = /^DROP\s+(TABLE|VIEW)\s+(IF\s+EXISTS\s+)?/i.exec(text)!
    const after = text.slice(match[0].length)
    const table = this.tableName(after, 'the dropped table')
    const rest = after.trim().slice(this.name(table).length).trim()
    if (rest !== '' && !/^SYNC$/i.test(rest))
      throw new ClusterDdlError(`cannot read this DROP: ${excerpt(text)}`)
    const ifExists = match[2] ? 'IF EXISTS ' : ''
    const kind = this.catalog.get(table)
    const what = kind === 'sharded' ? 'TABLE' : match[1]!.toUpperCase()
    if (!kind && !ifExists)
      throw new ClusterDdlError(`DROP of ${this.name(table)}, which the migrations never created`)
    this.catalog.delete(table)
    const sync = rest ? ` ${rest.toUpperCase()}` : ''
    const drop = (name: string) => `DROP ${what} ${ifExists}${this.name(name)} ${this.onCluster}${sync}`
    // Unknown with IF EXISTS: whichever of the two exists goes.
    if (kind === 'sharded' || kind === undefined) return [drop(table), drop(this.local(table))]
    return [drop(table)]
  }

  /** OPTIMIZE … FINAL rewrites parts: those of the local tables, on every node. */
  private optimize(text: string): string[] {
    const match = /^OPTIMIZE\s+TABLE\s+/i.exec(text)!
    const rest = text.slice(match[0].length).trim()
    const table = this.tableName(rest, 'the optimized table')
    const tail = rest.slice(this.name(table).length).trim()
    if (!rest.startsWith(this.name(table)) || !/^(FINAL)?$/i.test(tail))
      throw new ClusterDdlError(`cannot read this OPTIMIZE: ${excerpt(text)}`)
    const kind = this.kindOf(table, text)
    if (kind !== 'sharded' && kind !== 'replicated')
      throw new ClusterDdlError(`OPTIMIZE of a view: ${excerpt(text)}`)
    return [
      `OPTIMIZE TABLE ${this.name(kind === 'sharded' ? this.local(table) : table)} ${this.onCluster}${tail ? ` ${tail}` : ''}`,
    ]
  }

  /** The rows are in the local tables; a Distributed table holds none. */
  private truncate(text: string): string[] {
    const match = /^TRUNCATE\s+TABLE\s+(IF\s+EXISTS\s+)?/i.exec(text)!
    const table = this.tableName(text.slice(match[0].length), 'the truncated table')
    if (text.slice(match[0].length).trim() !== this.name(table))
      throw new ClusterDdlError(`cannot read this TRUNCATE: ${excerpt(text)}`)
    const kind = this.kindOf(table, text)
    if (kind !== 'sharded' && kind !== 'replicated')
      throw new ClusterDdlError(`TRUNCATE of a view: ${excerpt(text)}`)
    const ifExists = match[1] ? 'IF EXISTS ' : ''
    return [
      `TRUNCATE TABLE ${ifExists}${this.name(kind === 'sharded' ? this.local(table) : table)} ${this.onCluster}`,
    ]
  }

  /**
   * INSERT … SELECT into a Distributed table returns once the shards hold the rows. A plain copy of
   * one sharded table into another (a rebuild) runs on each shard from its local table into its local
   * table (parallel_distributed_insert_select = 2): the rows are on the shard their key names already.
   * Any other SELECT goes through the Distributed table, which places every row by its key.
   */
  private insertSelect(text: string): string[] {
    const match = /^INSERT\s+INTO\s+/i.exec(text)!
    const table = this.tableName(text.slice(match[0].length), 'the insert target')
    const kind = this.kindOf(table, text)
    if (kind !== 'sharded' && kind !== 'replicated')
      throw new ClusterDdlError(`INSERT into ${this.name(table)}, which is not a table: ${excerpt(text)}`)
    const { body, settings } = withoutSettings(text)
    const select = /\bSELECT\b/i.exec(codeMask(body))
    if (!select) throw new ClusterDdlError(`INSERT without SELECT in a migration: ${excerpt(text)}`)
    // Into a table on every node: one insert, which replication carries to the others.
    if (kind === 'replicated') return [text]
    const copy = new RegExp(`^SELECT\\s+\\*\\s+FROM\\s+${this.layout.database}\\.(\\w+)$`, 'i').exec(
      body.slice(select.index).trim(),
    )
    const copiesShards = copy !== null && this.kindOf(copy[1]!, text) === 'sharded'
    const added = ['distributed_foreground_insert = 1']
    // A join or IN over a second sharded table reads it whole (GLOBAL), not one shard's part of it.
    added.push(
      copiesShards ? 'parallel_distributed_insert_select = 2' : "distributed_product_mode = 'global'",
    )
    return [`${body}\nSETTINGS ${[settings, ...added].filter(Boolean).join(', ')}`]
  }

  /**
   * A migration's closing check on system tables (engine, index, count) asks about the tables that
   * hold the data: the local ones, with their Replicated engine. Other SELECTs read the cluster as is.
   */
  private check(text: string): string {
    if (!/\bFROM\s+system\.\w+/i.test(codeMask(text))) return text
    return text.replace(/'((?:[^'\\]|\\.)*)'/g, (literal, value: string) => {
      if (this.catalog.get(value) === 'sharded') return `'${this.local(value)}'`
      // An engine name or pattern (ReplacingMergeTree(version…, MergeTree%), not a message that names one.
      const engine = /^([A-Za-z]*MergeTree)(\(\)?|(?=%|$))/.exec(value)
      if (!engine || !replicableEngines.has(engine[1]!)) return literal
      const [name, paren] = [engine[1]!, engine[2]!]
      // engine_full of a Replicated table starts with its Keeper path and replica name.
      const args = paren === '()' ? '(%)' : paren === '(' ? '(%, %, ' : ''
      return `'Replicated${name}${args}${value.slice(name.length + paren.length)}'`
    })
  }
}

/** Every migration's statements in cluster form; the catalog runs through them in order. */
export function clusterMigrationStatements(
  migrations: readonly { statements: readonly string[] }[],
  layout: ClusterLayout,
): string[][] {
  const ddl = new ClusterDdl(layout)
  return migrations.map((migration) => migration.statements.flatMap((statement) => ddl.translate(statement)))
}
