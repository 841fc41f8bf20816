import { describe, expect, it } from 'vitest'
import { folderGraph, loops, productImports } from './import-graph.ts'

// The floors of the house (docs/architecture.md): each part may import only the parts listed here
// (and itself). Read from the sources at each run, so a new import that breaks a floor fails here.
const mayImport: Record<string, string[]> = {
  'core/runtime': [],
  core: ['core/runtime'],
  'services/ingress': ['core', 'core/runtime'],
  'services/worker': ['core', 'core/runtime'],
  'services/assembler': ['core', 'core/runtime'],
  generator: ['core', 'core/runtime'],
  'dashboards/src': ['core', 'core/runtime'],
  scripts: ['core', 'core/runtime'],
  cli: ['core', 'core/runtime', 'generator', 'services/worker'],
  'dev-server': [
    'core',
    'core/runtime',
    'generator',
    'services/ingress',
    'services/worker',
    'services/assembler',
    'cli',
    'dashboards/src',
  ],
}
const partOf = (file: string) =>
  Object.keys(mayImport)
    .filter((part) => file.startsWith(`${part}/`))
    .sort((a, b) => b.length - a.length)[0]

describe('the import graph of the product', () => {
  const files = productImports()

  it('reads the product: every part has files, every import names a product file', () => {
    for (const part of Object.keys(mayImport))
      expect([...files.keys()].some((f) => partOf(f) === part)).toBe(true)
    const dangling = [...files].flatMap(([file, targets]) =>
      targets.filter((t) => !files.has(t)).map((t) => `${file} -> ${t}`),
    )
    expect(dangling).toEqual([])
  })

  it('has no files that import each other in a loop', () => {
    expect(loops(files)).toEqual([])
  })

  it('has no folder that imports a folder which imports it back', () => {
    expect(loops(folderGraph(files))).toEqual([])
  })

  it('keeps each part to the floors below it', () => {
    const broken = [...files].flatMap(([file, targets]) =>
      targets
        .filter(
          (target) => partOf(target) !== partOf(file) && !mayImport[partOf(file)!]!.includes(partOf(target)!),
        )
        .map((target) => `${file} -> ${target}`),
    )
    expect(broken).toEqual([])
  })
})

describe('loops', () => {
  it('finds a loop of three and a file that imports itself, and nothing in a tree', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ])
    expect(loops(graph)).toEqual([['a', 'b', 'c'], ['e']])
    expect(
      loops(
        new Map([
          ['x', ['y']],
          ['y', []],
        ]),
      ),
    ).toEqual([])
  })

  it('reads a folder loop from files whose folders import each other', () => {
    const graph = new Map([
      ['p/one.ts', ['p/q/two.ts']],
      ['p/q/two.ts', ['p/three.ts']],
      ['p/three.ts', []],
    ])
    expect(loops(graph)).toEqual([])
    expect(loops(folderGraph(graph))).toEqual([['p', 'p/q']])
  })
})
