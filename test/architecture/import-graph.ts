// The product's import graph read from its sources: which file imports which (relative imports,
// static and dynamic), and the loops in it. Read as text: the product imports by literal paths only.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

export const repoRoot = normalize(join(import.meta.dirname, '../..'))

/** The product's folders: what runs or is shipped. Tests and benchmarks import it; it never imports them. */
export const productRoots = [
  'core',
  'services',
  'cli',
  'dev-server',
  'generator',
  'dashboards/src',
  'scripts',
]

const importSpecifier = /(?:\bfrom|\bimport|\bimport\()\s*['"](\.{1,2}\/[^'"]+)['"]/g

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path)
    return /\.(ts|js)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : []
  })
}

/** Each product file (path from the repository's root) with the product files it imports. */
export function productImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of productRoots.flatMap(sourceFiles)) {
    const text = readFileSync(join(repoRoot, file), 'utf8')
    const targets = [...text.matchAll(importSpecifier)].map((match) =>
      relative(repoRoot, join(repoRoot, dirname(file), match[1]!)),
    )
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** The strongly connected parts of more than one node, or of one node that imports itself (Tarjan). */
export function loops(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string) => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) !== index.get(node)) return
    const part: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      part.push(member)
    } while (member !== node)
    if (part.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(part.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

/** The graph of folders: folder A -> folder B when a file directly in A imports a file directly in B. */
export function folderGraph(files: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>()
  for (const [file, targets] of files) {
    const from = dirname(file)
    const set = folders.get(from) ?? new Set<string>()
    for (const target of targets) if (dirname(target) !== from) set.add(dirname(target))
    folders.set(from, set)
  }
  return new Map([...folders].map(([folder, set]) => [folder, [...set].sort()]))
}
