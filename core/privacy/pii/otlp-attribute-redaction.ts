import type { OtlpAttribute, OtlpSpan, OtlpSpans } from '../../otlp/otlp-spans.ts'
import { type AttributeClass, attributeClass } from './otlp-attribute-classes.ts'
import type { PiiPolicy } from './pii-policy.ts'
import { hashPhone, maskText } from './pii-redaction.ts'

// A source's PII_POLICY applied to the attributes of an OTLP message before it reaches Kafka,
// the knobs meaning what they mean for the webhook (docs/privacy.md, docs/otlp.md §3.7):
// content keep|mask|drop: text attributes masked as the webhook masks a transcript, or removed;
// tools drop: tool arguments and results removed; a whole LLM context (text and tool calls in
// one attribute) is removed when either removes, masked when content masks; other `pii`-marked
// keys (identity, room name) removed unless content is kept; phone keep|hmac|drop: phone-number
// attributes hashed as the webhook hashes from_number, or removed; errors mask: exception texts
// and the span status message masked. A value that is not a string under mask or hmac is removed
// (it cannot be masked reliably). Pure: returns copies of what it changes.
type Action = 'keep' | 'drop' | ((text: string) => string)

function actionOf(kind: AttributeClass, policy: PiiPolicy, hmacKey: string | undefined): Action {
  switch (kind) {
    case 'content':
      return policy.content === 'mask' ? maskText : policy.content
    case 'tools':
      return policy.tools
    case 'mixed':
      if (policy.tools === 'drop' || policy.content === 'drop') return 'drop'
      return policy.content === 'mask' ? maskText : 'keep'
    case 'marked':
      return policy.content === 'keep' ? 'keep' : 'drop'
    case 'phone':
      if (policy.phone !== 'hmac') return policy.phone
      if (!hmacKey) throw new Error('PII_HMAC_KEY is required to hash phone numbers')
      return (phone) => hashPhone(phone, hmacKey)
    case 'errors':
      return policy.errors === 'mask' ? maskText : 'keep'
    case 'other':
      return 'keep'
  }
}

export type OtlpRedactor = (message: OtlpSpans) => OtlpSpans

/** The redactor of one policy; call it only for a policy that removes something. */
export function otlpRedactor(policy: PiiPolicy, hmacKey: string | undefined): OtlpRedactor {
  const classes: AttributeClass[] = ['content', 'tools', 'mixed', 'marked', 'phone', 'errors', 'other']
  const actions = new Map(classes.map((kind) => [kind, actionOf(kind, policy, hmacKey)]))
  const action = (kind: AttributeClass) => actions.get(kind)!
  const maskStatus = policy.errors === 'mask'

  function redactAttributes(attributes: OtlpAttribute[], eventName?: string): OtlpAttribute[] {
    let copy: OtlpAttribute[] | undefined
    for (let index = 0; index < attributes.length; index++) {
      const attribute = attributes[index]!
      const todo = action(attributeClass(attribute.key, eventName))
      if (todo === 'keep') {
        copy?.push(attribute)
        continue
      }
      copy ??= attributes.slice(0, index)
      if (todo !== 'drop' && attribute.string_value !== null)
        copy.push({ ...attribute, string_value: todo(attribute.string_value) })
    }
    return copy ?? attributes
  }

  function redactSpan(span: OtlpSpan): OtlpSpan {
    return {
      ...span,
      status_message:
        maskStatus && span.status_message !== null ? maskText(span.status_message) : span.status_message,
      attributes: redactAttributes(span.attributes),
      events: span.events.map((event) => ({
        ...event,
        attributes: redactAttributes(event.attributes, event.name),
      })),
    }
  }

  return (message) => ({
    ...message,
    resource_attributes: redactAttributes(message.resource_attributes),
    spans: message.spans.map(redactSpan),
  })
}
