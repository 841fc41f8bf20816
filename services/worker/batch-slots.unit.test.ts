import { describe, expect, it } from 'vitest'
import { BatchSlots } from './batch-slots.ts'

const settled = async (promise: Promise<unknown>) => {
  let done = false
  void promise.then(() => {
    done = true
  })
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('BatchSlots', () => {
  it('gives out slots up to the limit at once, then makes callers wait', async () => {
    const slots = new BatchSlots(2)
    expect(await settled(slots.acquire())).toBe(true)
    expect(await settled(slots.acquire())).toBe(true)
    expect(await settled(slots.acquire())).toBe(false)
    expect(slots.taken).toBe(2)
  })

  it('never has more slots taken than the limit, however many callers wait', async () => {
    const slots = new BatchSlots(1)
    await slots.acquire()
    const waiters = [slots.acquire(), slots.acquire(), slots.acquire()]
    slots.release()
    expect(await settled(waiters[0]!)).toBe(true)
    expect(await settled(waiters[1]!)).toBe(false)
    expect(slots.taken).toBe(1)
  })

  it('hands a released slot to the longest waiter first', async () => {
    const slots = new BatchSlots(1)
    await slots.acquire()
    const order: string[] = []
    const first = slots.acquire().then(() => order.push('first'))
    const second = slots.acquire().then(() => order.push('second'))
    slots.release()
    await first
    slots.release()
    await second
    expect(order).toEqual(['first', 'second'])
  })

  it('frees the slot when nobody waits', async () => {
    const slots = new BatchSlots(1)
    await slots.acquire()
    slots.release()
    expect(slots.taken).toBe(0)
    expect(await settled(slots.acquire())).toBe(true)
  })

  it('refuses a limit below one', () => {
    expect(() => new BatchSlots(0)).toThrow(/at least 1/)
  })
})
