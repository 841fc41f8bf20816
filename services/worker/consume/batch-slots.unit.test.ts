import { describe, expect, it } from 'vitest'
import { BatchSlots, batchBytes } from './batch-slots.ts'

const settled = async (promise: Promise<unknown>) => {
  let done = false
  void promise.then(() => {
    done = true
  })
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('BatchSlots', () => {
  it('gives out room up to the bound in bytes at once, then makes callers wait', async () => {
    const slots = new BatchSlots(100)
    expect(await settled(slots.acquire(60))).toBe(true)
    expect(await settled(slots.acquire(40))).toBe(true)
    expect(await settled(slots.acquire(1))).toBe(false)
    expect(slots.taken).toBe(100)
  })

  it('holds many small batches where a count would have held few: the bound is bytes', async () => {
    const slots = new BatchSlots(8 * 1024 * 1024)
    const grants = Array.from({ length: 40 }, () => slots.acquire(150 * 1024))
    expect(await Promise.all(grants.map(settled))).toEqual(grants.map(() => true))
    expect(slots.taken).toBe(40 * 150 * 1024)
  })

  it('never holds more than the bound, however many callers wait', async () => {
    const slots = new BatchSlots(100)
    const release = await slots.acquire(70)
    const waiters = [slots.acquire(50), slots.acquire(50), slots.acquire(50)]
    release()
    expect(await settled(waiters[0]!)).toBe(true)
    expect(await settled(waiters[1]!)).toBe(true)
    expect(await settled(waiters[2]!)).toBe(false)
    expect(slots.taken).toBe(100)
  })

  it('hands room to the longest waiter first; a smaller later one does not pass it', async () => {
    const slots = new BatchSlots(100)
    const release = await slots.acquire(60)
    const order: string[] = []
    const large = slots.acquire(80).then((done) => {
      order.push('large')
      return done
    })
    const small = slots.acquire(10).then(() => order.push('small')) // would fit now, but waits its turn
    expect(await settled(small)).toBe(false)
    release()
    ;(await large)()
    await small
    expect(order).toEqual(['large', 'small'])
  })

  it('says when a caller would wait: no room, or others waiting before it', async () => {
    const slots = new BatchSlots(100)
    expect(slots.mustWait(100)).toBe(false)
    const release = await slots.acquire(90)
    expect(slots.mustWait(10)).toBe(false)
    expect(slots.mustWait(11)).toBe(true)
    const waiter = slots.acquire(50)
    expect(slots.mustWait(1)).toBe(true) // it would fit, but another waits before it
    release()
    await waiter
    expect(slots.mustWait(50)).toBe(false)
  })

  it('lets a batch larger than the whole bound in when nothing else is held', async () => {
    const slots = new BatchSlots(100)
    const release = await slots.acquire(30)
    const huge = slots.acquire(500)
    expect(await settled(huge)).toBe(false)
    release()
    expect(await settled(huge)).toBe(true)
    expect(slots.taken).toBe(500)
  })

  it('frees the room when nobody waits; giving it back twice frees it once', async () => {
    const slots = new BatchSlots(100)
    const first = await slots.acquire(100)
    const second = slots.acquire(100)
    first()
    first()
    expect(await settled(second)).toBe(true)
    expect(slots.taken).toBe(100)
    ;(await second)()
    expect(slots.taken).toBe(0)
  })

  it('refuses a bound below one byte', () => {
    expect(() => new BatchSlots(0)).toThrow(/at least 1/)
  })
})

describe('batchBytes', () => {
  it('counts the keys and values Kafka returned', () => {
    expect(
      batchBytes([
        { key: Buffer.from('ab'), value: Buffer.from('abcde') },
        { key: null, value: Buffer.from('xyz') },
        { key: Buffer.from('k'), value: null },
      ]),
    ).toBe(11)
  })
})
