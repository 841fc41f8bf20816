// Writes core/event/conversation-complete.types.ts from the Avro schema, so the
// TypeScript types of the payload cannot drift from the Kafka contract. `npm run generate`;
// a unit test fails when the committed file is stale.
import { writeFileSync } from 'node:fs'
import { renderEventTypes } from '../core/event/render-event-types.ts'

const target = new URL('../core/event/conversation-complete.types.ts', import.meta.url)
writeFileSync(target, renderEventTypes())
console.log(`wrote ${target.pathname}`)
