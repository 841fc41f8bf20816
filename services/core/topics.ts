// Kafka topic names (contract): the event topic and where the events that do not fit it go.
export const topics = {
  conversationComplete: 'voice.conversation-complete.v1',
  quarantine: 'voice.conversation-complete.quarantine.v1',
  otherEvents: 'voice.other-events.v1',
  deadLetter: 'voice.conversation-complete.dlq.v1',
} as const

export const conversationCompleteSubject = `${topics.conversationComplete}-value`
