import type { Random } from './random.ts'

// What synthetic conversations say: a few business domains, each with its agent prompt, lines for
// both sides, the tools its agent calls and what they answer. Data only; the generator composes it.
export interface ToolScript {
  name: string
  arguments(rng: Random): Record<string, unknown>
  output(rng: Random): Record<string, unknown>
  errors: readonly string[]
}

export interface DomainScript {
  key: string
  agentNames: readonly string[]
  systemPrompt: string
  /** The knowledge section of the prompt: what the agent may tell callers. */
  facts: string
  greetings: readonly string[]
  userLines: readonly string[]
  assistantLines: readonly string[]
  /** What the agent says once a tool has answered. */
  afterToolLines: readonly string[]
  userClosings: readonly string[]
  assistantClosings: readonly string[]
  tools: readonly ToolScript[]
  specialist: { instructions: string; tools: readonly string[]; greeting: string }
  campaignNames: readonly string[]
  testNames: readonly string[]
  /** Campaign item variables or web widget parameters. */
  urlParameters(rng: Random): Record<string, string>
}

const firstNames = [
  'Anna',
  'Ben',
  'Chloe',
  'David',
  'Emma',
  'Farid',
  'Grace',
  'Hugo',
  'Ines',
  'Jonas',
  'Lena',
  'Marco',
]
const lastNames = [
  'Keller',
  'Novak',
  'Schmidt',
  'Rossi',
  'Meyer',
  'Dubois',
  'Jansen',
  'Costa',
  'Weber',
  'Larsen',
]
const isoDay = (rng: Random): string => `2025-06-${String(rng.int(3, 27)).padStart(2, '0')}`

export const fullName = (rng: Random): string => `${rng.pick(firstNames)} ${rng.pick(lastNames)}`

const dental: DomainScript = {
  key: 'dental',
  agentNames: ['Brightsmile Dental Reception', 'Brightsmile Recall Assistant'],
  systemPrompt:
    'You are the phone receptionist of Brightsmile Dental, a family dental practice with two locations (Riverside and Old Town). ' +
    'Speak warmly and briefly, one or two sentences per turn, and never give medical advice. Your tasks: book, move and cancel ' +
    'appointments, answer questions about opening hours (Mon-Fri 8:00-18:00, Sat 9:00-13:00), prices of routine treatments and ' +
    'insurance. Always confirm the patient name, date of birth and phone number before booking. Use check_availability before ' +
    'proposing a slot and book_appointment only after the patient agreed to a slot. If the caller reports severe pain, swelling or ' +
    'bleeding, offer the emergency slot of the day. If the caller asks about an invoice, hand over to the billing specialist. ' +
    'Spell dates as weekday plus day and month. Do not read out internal identifiers. End the call politely once the task is done.',
  facts:
    '# Facts\n' +
    '- Riverside practice: 12 Riverside Walk, parking in the yard, step-free access. Old Town practice: 3 Market Lane, first ' +
    'floor, no lift.\n' +
    '- Treatments and prices without insurance: check-up 45 euros, professional cleaning 95 euros (45 minutes), filling from ' +
    '80 euros, emergency appointment 60 euros plus treatment. Children under 12 get free check-ups.\n' +
    '- Dentists: Dr. Weber (Riverside, Mon-Thu), Dr. Rossi (both, Tue-Sat), Dr. Novak (Old Town, children, Mon/Wed/Fri).\n' +
    '- Cancellations less than 24 hours before the appointment cost 30 euros unless the patient is ill.\n' +
    '- Insurance: public insurance pays one check-up per half year and one cleaning per year only for some funds; tell the ' +
    'caller to check with their fund. Private insurance usually covers cleanings.\n' +
    '- Emergency slot: every weekday at 8:00 and 13:30 in Riverside; on Saturdays at 9:00 in Old Town.',
  greetings: [
    'Good morning, this is Brightsmile Dental, my name is Anna. How can I help you today?',
    'Hello, you have reached Brightsmile Dental. I can help with appointments and questions. What can I do for you?',
    'Hi, this is the Brightsmile Dental assistant calling about your six-month check-up. Do you have a minute to pick a date?',
  ],
  userLines: [
    "Hi, yes, I'd like to book a cleaning, it's been almost a year since my last one.",
    'I have a bit of a toothache on the lower left side since the weekend, could somebody have a look?',
    'Do you have anything next Tuesday in the afternoon? I work until three.',
    'My date of birth is the fourteenth of March, nineteen eighty-six.',
    'Sure, my number is oh one seven six, two two four, nine eight one three.',
    'Is that at the Riverside practice or the one in Old Town?',
    'How much does a cleaning cost if my insurance does not cover it?',
    'Actually, can we make it a bit later, maybe around five?',
    'Yes, that works for me, please book it.',
    'I also got an invoice last month that I do not understand.',
    'Can my daughter come in the same day? She is eight.',
    'Sorry, the line was bad, could you repeat the time?',
  ],
  assistantLines: [
    'Of course. May I have your full name and date of birth so I can find your file?',
    'I am sorry to hear about the pain. Is there any swelling, or is it mostly sensitive when you chew?',
    'Thank you. A professional cleaning takes about forty-five minutes and costs ninety-five euros without insurance.',
    'Both locations are open until six on weekdays. Riverside has more free slots this week.',
    'Got it. And which phone number should we use for the reminder text message?',
    'No problem. I will look for something after four o clock.',
    'Yes, children can come on the same day; I will try to find two slots next to each other.',
    'Let me repeat: Tuesday the tenth of June at four thirty, at the Riverside practice.',
  ],
  afterToolLines: [
    'I have Tuesday the tenth at four thirty or Thursday the twelfth at five fifteen. Which one suits you better?',
    'Your appointment is booked. You will get a text message with the details and a reminder the day before.',
    'I found your file. Your last check-up was in October, so you are due for a cleaning.',
    'I am sorry, the booking system did not accept that slot. Let me try the next one for you.',
  ],
  userClosings: [
    'Perfect, thank you so much. Bye!',
    'Great, that is all, thanks.',
    'Okay, see you then, bye bye.',
  ],
  assistantClosings: [
    'You are welcome. See you on Tuesday, and have a lovely day!',
    'Thank you for calling Brightsmile Dental. Goodbye!',
  ],
  tools: [
    {
      name: 'check_availability',
      arguments: (rng) => ({
        date: isoDay(rng),
        treatment: rng.pick(['cleaning', 'check-up', 'emergency', 'filling']),
        location: rng.pick(['riverside', 'old_town']),
        earliest_time: rng.pick(['08:00', '13:00', '16:00']),
      }),
      output: (rng) => ({
        slots: [
          {
            slot_id: `slt_${rng.alphanumeric(10)}`,
            start: `${isoDay(rng)}T16:30:00+02:00`,
            dentist: 'Dr. Weber',
          },
          {
            slot_id: `slt_${rng.alphanumeric(10)}`,
            start: `${isoDay(rng)}T17:15:00+02:00`,
            dentist: 'Dr. Rossi',
          },
        ],
      }),
      errors: ['calendar service timeout after 5000 ms', 'location not found: old town'],
    },
    {
      name: 'book_appointment',
      arguments: (rng) => ({
        slot_id: `slt_${rng.alphanumeric(10)}`,
        patient_name: fullName(rng),
        date_of_birth: `19${rng.int(50, 99)}-0${rng.int(1, 9)}-1${rng.int(0, 9)}`,
        phone: `+49176${rng.digits(7)}`,
      }),
      output: (rng) => ({
        appointment_id: `apt_${rng.alphanumeric(12)}`,
        confirmed: true,
        sms_sent: rng.chance(0.9),
      }),
      errors: ['slot already taken', 'patient record locked by another user'],
    },
    {
      name: 'lookup_patient',
      arguments: (rng) => ({ phone: `+49176${rng.digits(7)}` }),
      output: (rng) => ({
        patient_id: `pat_${rng.digits(6)}`,
        name: fullName(rng),
        last_visit: `2024-${String(rng.int(1, 12)).padStart(2, '0')}-${rng.int(10, 28)}`,
        insurance: rng.pick(['public', 'private', 'none']),
      }),
      errors: ['no patient with this phone number'],
    },
  ],
  specialist: {
    instructions:
      'You are the billing specialist of Brightsmile Dental. Explain invoices line by line, offer to send a copy by e-mail and ' +
      'open a payment plan for amounts over 300 euros. Never discuss treatment decisions.',
    tools: ['get_invoice', 'send_invoice_copy'],
    greeting:
      'Hello, this is the billing desk. I can see your last invoice; which item would you like me to explain?',
  },
  campaignNames: ['Recall reminders June', 'Check-up reactivation 2025', 'No-show follow-up'],
  testNames: [
    'Books a cleaning for a new patient',
    'Refuses medical advice politely',
    'Offers emergency slot for swelling',
  ],
  urlParameters: (rng) => ({
    first_name: rng.pick(firstNames),
    last_visit: `2024-${String(rng.int(1, 12)).padStart(2, '0')}-${rng.int(10, 28)}`,
    preferred_location: rng.pick(['riverside', 'old_town']),
    patient_ref: `pat_${rng.digits(6)}`,
  }),
}

const parcel: DomainScript = {
  key: 'parcel',
  agentNames: ['Northwind Parcel Delivery Desk', 'Northwind Missed Delivery Line'],
  systemPrompt:
    'You are the voice assistant of Northwind Parcel. Callers ask where their parcel is, want to reschedule a delivery, change the ' +
    'delivery address or report damage. Ask for the twelve-character tracking number first and read it back in groups of four. ' +
    'Use track_parcel to get the status and reschedule_delivery to move a delivery; only dates in the next ten working days are ' +
    'possible and address changes are only allowed before the parcel is out for delivery. Keep answers under twenty words when ' +
    'you can. For damaged parcels collect a description and hand over to the claims team. Never promise an exact delivery time; ' +
    'give the two-hour window from the system instead.',
  facts:
    '# Facts\n' +
    '- Tracking numbers have 12 characters: two letters, two digits, two letters, six digits (example NW47KL928810).\n' +
    '- Delivery windows: morning 8-12, afternoon 12-17, evening 17-21 (evening only in cities). No Sunday deliveries; ' +
    'Saturday only in the Hamburg and Bremen areas.\n' +
    '- After two failed attempts the parcel goes to the nearest parcel shop for seven days, then back to the sender.\n' +
    '- Safe places: neighbour, garage, terrace; the caller must give the neighbour name and house number.\n' +
    '- Damage claims must be reported within seven days of delivery; the claims team needs photos of the box and the content.\n' +
    '- Address changes cost nothing before the parcel leaves the depot; afterwards a redirection costs 4.90 euros.',
  greetings: [
    'Hi, this is Northwind Parcel. Do you have your tracking number at hand?',
    'Hello, Northwind Parcel here. We missed you with a delivery today; shall we find a new date?',
  ],
  userLines: [
    'Yes, it is N W four seven, K L nine two, eight eight one zero.',
    'I was not home this morning and there is a card in my mailbox.',
    'Can you deliver it on Saturday instead? I am only home at weekends.',
    'Is it possible to leave it with my neighbour at number twelve?',
    'The box arrived completely crushed and the lamp inside is broken.',
    'I moved last week, can you send it to my new address?',
    'What does out for delivery mean, will it come today?',
    'No, sorry, the last part was eight eight one six, not zero.',
    'The morning window would be better, before noon if you can.',
    'Okay. And will I get a text message before the driver comes?',
  ],
  assistantLines: [
    'Thanks. Let me read it back: N W 4 7, K L 9 2, 8 8 1 0. Is that right?',
    'Sure. Which day would suit you best? I can offer any working day until the twentieth.',
    'I can note your neighbour as a safe place. What is the name on their door?',
    'I am sorry about the damage. Could you describe what is broken and whether the outer box was damaged too?',
    'Address changes are possible until the parcel leaves the depot. What is the new street and postcode?',
    'Yes, you will get a text message with a two-hour window on the morning of the delivery.',
    'Saturday deliveries are not available in your area, but Friday evening is.',
  ],
  afterToolLines: [
    'Your parcel is at the Hamburg depot and is planned for delivery tomorrow between ten and twelve.',
    'Done, the delivery is now set for Friday between six and eight in the evening.',
    'I could not find that tracking number. Could you read me the last four characters again?',
    'The parcel is already out for delivery, so I cannot change the address any more, sorry.',
  ],
  userClosings: ['Great, thanks for your help.', 'Alright, thank you, bye.', 'Okay, that is fine. Goodbye.'],
  assistantClosings: [
    'You are welcome. Have a nice day!',
    'Thank you for calling Northwind Parcel. Goodbye.',
  ],
  tools: [
    {
      name: 'track_parcel',
      arguments: (rng) => ({ tracking_number: `NW${rng.digits(2)}KL${rng.digits(2)}${rng.digits(4)}` }),
      output: (rng) => ({
        status: rng.pick(['in_depot', 'out_for_delivery', 'delivery_failed', 'in_transit']),
        depot: rng.pick(['Hamburg', 'Bremen', 'Hannover']),
        window: { from: '10:00', to: '12:00' },
        attempts: rng.int(0, 2),
      }),
      errors: ['tracking number not found', 'tracking backend returned 503'],
    },
    {
      name: 'reschedule_delivery',
      arguments: (rng) => ({
        tracking_number: `NW${rng.digits(2)}KL${rng.digits(2)}${rng.digits(4)}`,
        date: isoDay(rng),
        window: rng.pick(['morning', 'afternoon', 'evening']),
        safe_place: rng.chance(0.3) ? 'neighbour' : null,
      }),
      output: (rng) => ({ rescheduled: true, reference: `RS-${rng.digits(8)}` }),
      errors: ['date outside the allowed range', 'parcel already out for delivery'],
    },
  ],
  specialist: {
    instructions:
      'You are the claims agent of Northwind Parcel. Collect what was damaged, its value and photos by e-mail link, then open a ' +
      'claim. Tell the caller a decision takes up to five working days.',
    tools: ['open_damage_claim', 'send_photo_upload_link'],
    greeting: 'Hi, I am from the claims team. I am sorry your parcel was damaged; what was inside?',
  },
  campaignNames: ['Missed delivery callback', 'Address confirmation before Christmas'],
  testNames: ['Reads tracking number back in groups', 'Refuses address change when out for delivery'],
  urlParameters: (rng) => ({
    tracking_number: `NW${rng.digits(2)}KL${rng.digits(2)}${rng.digits(4)}`,
    first_name: rng.pick(firstNames),
    failed_attempts: String(rng.int(1, 2)),
  }),
}

const insurance: DomainScript = {
  key: 'insurance',
  agentNames: ['Harbor Insurance Claims Intake', 'Harbor Insurance Renewal Assistant'],
  systemPrompt:
    'You are the claims intake assistant of Harbor Insurance. You record first notices of loss for home and car policies. Verify ' +
    'the caller with policy number and date of birth using find_policy before anything else. Then ask what happened, when and ' +
    'where, whether anybody was hurt and whether the police were called. Open the claim with open_claim and give the caller the ' +
    'claim number slowly, digit by digit. If anybody is injured, tell the caller to call the emergency number first. Do not ' +
    'assess liability or promise payments. Offer to send a link for photos by text message. Speak calmly and use short sentences.',
  facts:
    '# Facts\n' +
    '- Policy numbers start with HI followed by seven digits. Car policies: liability, partial cover, comprehensive. Home ' +
    'policies: contents and buildings.\n' +
    '- Comprehensive car cover includes collision damage with an excess of 300 euros; partial cover includes glass, theft, ' +
    'storm and animal collisions with an excess of 150 euros.\n' +
    '- Water damage in flats: contents policy pays for the caller’s belongings; the building is insured by the owner.\n' +
    '- Claims hotline for humans: weekdays 8-20. Adjusters call back within two working days; urgent home damage within ' +
    'four hours.\n' +
    '- Emergency services through the policy: towing up to 150 km, emergency plumber up to 500 euros, locksmith up to 300 euros.\n' +
    '- Never state whether a claim will be paid; say that the adjuster decides.',
  greetings: [
    'Harbor Insurance claims, this is the virtual assistant. Can I have your policy number, please?',
    'Hello, this is Harbor Insurance calling about your policy renewal. Is this a good moment?',
  ],
  userLines: [
    'Hi, yes, somebody backed into my car in the supermarket car park this morning.',
    'The policy number is H I 2 0 4 4 7 1 9.',
    'Born on the second of November, nineteen seventy-nine.',
    'No, nobody was hurt, but the rear bumper is completely dented.',
    'It happened around ten thirty at the Lidl on Station Road.',
    'I have the other driver’s plate number and a photo of their insurance card.',
    'Do I need to call the police for something like this?',
    'How long does it usually take until somebody gets back to me?',
    'Water is coming through the kitchen ceiling from the flat above.',
    'Yes, please send me the link, same number I am calling from.',
  ],
  assistantLines: [
    'I am sorry to hear that. Was anybody injured?',
    'Thank you. Can you tell me when and where it happened?',
    'For damage without injuries the police are not required, but the other driver’s details help a lot.',
    'Please read me the other car’s plate number slowly.',
    'I understand. Please turn off the water at the main valve if you can reach it safely.',
    'An adjuster usually contacts you within two working days.',
  ],
  afterToolLines: [
    'Thank you, I have found your policy, a comprehensive car policy valid until December.',
    'Your claim is open. The number is 4 7 1 1 0 2 9 3. I will send it by text message too.',
    'I could not match the date of birth to this policy. Could you check the policy number again?',
    'I have sent the photo link to your mobile number; it is valid for seven days.',
  ],
  userClosings: [
    'Okay, thank you, that helps a lot.',
    'Thanks, bye.',
    'Alright, I will wait for the call. Bye.',
  ],
  assistantClosings: ['Take care, and thank you for calling Harbor Insurance.', 'You are welcome. Goodbye.'],
  tools: [
    {
      name: 'find_policy',
      arguments: (rng) => ({
        policy_number: `HI${rng.digits(7)}`,
        date_of_birth: `19${rng.int(50, 99)}-11-02`,
      }),
      output: (rng) => ({
        policy_id: `pol_${rng.alphanumeric(12)}`,
        product: rng.pick(['car_comprehensive', 'home_contents', 'car_liability']),
        valid_until: '2025-12-31',
        holder: fullName(rng),
      }),
      errors: ['date of birth does not match the policy', 'policy system unavailable'],
    },
    {
      name: 'open_claim',
      arguments: (rng) => ({
        policy_id: `pol_${rng.alphanumeric(12)}`,
        incident_date: isoDay(rng),
        category: rng.pick(['collision', 'water_damage', 'theft', 'glass']),
        injuries: false,
        description: rng.pick([
          'Parked car hit by reversing vehicle, rear bumper dented',
          'Leak from flat above, kitchen ceiling wet',
          'Windscreen cracked by stone on motorway',
        ]),
      }),
      output: (rng) => ({ claim_number: rng.digits(8), adjuster_callback_days: 2 }),
      errors: ['incident date in the future', 'claims API returned 500'],
    },
    {
      name: 'send_sms_link',
      arguments: (rng) => ({ phone: `+4915${rng.digits(9)}`, purpose: 'photo_upload' }),
      output: (rng) => ({ sent: true, message_id: `SM${rng.hex(32)}` }),
      errors: ['phone number is a landline'],
    },
  ],
  specialist: {
    instructions:
      'You are the renewals advisor of Harbor Insurance. Explain the new premium, the changes in cover and the deadline. ' +
      'Offer the annual payment discount of three percent. Never pressure the caller.',
    tools: ['quote_renewal', 'apply_discount'],
    greeting: 'Hello, I am the renewals advisor. I have your new offer here; shall I walk you through it?',
  },
  campaignNames: ['Policy renewal outreach Q3', 'Claim status follow-up'],
  testNames: ['Verifies caller before opening claim', 'Sends emergency advice when injured'],
  urlParameters: (rng) => ({
    policy_number: `HI${rng.digits(7)}`,
    renewal_date: '2025-07-01',
    first_name: rng.pick(firstNames),
    segment: rng.pick(['car', 'home']),
  }),
}

const energy: DomainScript = {
  key: 'energy',
  agentNames: ['Volta Energy Payment Reminders', 'Volta Energy Customer Service'],
  systemPrompt:
    'You are a customer service agent of Volta Energy, an electricity and gas supplier. On outbound calls you remind customers of ' +
    'an overdue balance, confirm you are speaking to the account holder before mentioning any amount, and offer to pay by link or ' +
    'to set up a payment plan of up to six instalments. On inbound calls you answer questions about bills, meter readings and ' +
    'tariffs. Use get_balance for amounts and never guess them. Be respectful; if the customer says they are in financial ' +
    'hardship, offer the hardship programme and hand over to a specialist. Never threaten disconnection. Confirm every payment ' +
    'arrangement by repeating amount, number of instalments and first due date.',
  facts:
    '# Facts\n' +
    '- Account numbers start with VE followed by six digits. Bills are issued yearly with monthly advance payments.\n' +
    '- Payment plans: two to six monthly instalments, no fees, first instalment at the earliest on the first of next month. ' +
    'Only one active plan per account.\n' +
    '- Payment methods: bank transfer, direct debit, payment link (card or instant transfer), valid 14 days.\n' +
    '- Hardship programme: payment pause of up to three months and reduced instalments; the specialist registers customers.\n' +
    '- Meter readings: five digits for electricity, the last digit after the comma is ignored; gas meters show cubic metres.\n' +
    '- Tariffs: Volta Basic 34.9 cents per kWh, Volta Green 36.5 cents per kWh, base fee 12.90 euros per month.',
  greetings: [
    'Hello, this is the virtual assistant of Volta Energy. Am I speaking with the account holder?',
    'Volta Energy customer service, good afternoon. How can I help?',
  ],
  userLines: [
    'Yes, speaking. Is this about the letter I got last week?',
    'I know I am late, I lost my job in April and money is tight at the moment.',
    'Can I pay it in smaller parts, maybe over three months?',
    'I want to give you my meter reading, it is four five two nine one.',
    'Why is my bill so much higher than last year?',
    'My account number is V E seven seven three one two zero.',
    'Could you send me the payment link by e-mail instead of text?',
    'I already paid that on Monday, it should be on your side by now.',
    'What would the monthly amount be with six instalments?',
  ],
  assistantLines: [
    'Thank you. Before I continue, could you confirm your postcode?',
    'I understand, thank you for telling me. We have options to make this easier.',
    'A payment plan is possible with up to six monthly instalments.',
    'Thanks, I have noted the reading. Your next bill will be based on it.',
    'Last winter was estimated lower; the new bill includes the adjustment from your actual reading.',
    'Of course, I can send it by e-mail. Is the address ending in web dot de still correct?',
  ],
  afterToolLines: [
    'Your open balance is two hundred eighty-four euros and twenty cents, due since the fifteenth of May.',
    'Done. Your plan is three instalments of ninety-four euros seventy, the first one due on the first of July.',
    'I can see a payment from Monday; it is still being processed, so there is nothing more to do.',
    'The payment link is on its way and is valid for fourteen days.',
  ],
  userClosings: ['Okay, that is a relief, thank you.', 'Fine, thanks, bye.', 'Alright. Goodbye.'],
  assistantClosings: [
    'Thank you for your time, and have a good day.',
    'Thank you for calling Volta Energy. Goodbye.',
  ],
  tools: [
    {
      name: 'get_balance',
      arguments: (rng) => ({ account_id: `VE${rng.digits(6)}` }),
      output: (rng) => ({
        balance_eur: Math.round(rng.float(40, 900) * 100) / 100,
        due_since: '2025-05-15',
        reminders_sent: rng.int(1, 3),
      }),
      errors: ['account not found', 'billing system maintenance window'],
    },
    {
      name: 'create_payment_plan',
      arguments: (rng) => ({
        account_id: `VE${rng.digits(6)}`,
        instalments: rng.int(2, 6),
        first_due_date: '2025-07-01',
      }),
      output: (rng) => ({
        plan_id: `pp_${rng.alphanumeric(10)}`,
        instalment_eur: Math.round(rng.float(30, 200) * 100) / 100,
      }),
      errors: ['instalments above the allowed maximum', 'account already has an active plan'],
    },
    {
      name: 'send_payment_link',
      arguments: (rng) => ({ account_id: `VE${rng.digits(6)}`, channel: rng.pick(['sms', 'email']) }),
      output: (rng) => ({ sent: true, link_id: `pl_${rng.alphanumeric(16)}`, expires_in_days: 14 }),
      errors: ['no e-mail address on file'],
    },
  ],
  specialist: {
    instructions:
      'You are the hardship specialist of Volta Energy. Listen first, explain the hardship programme (payment pause of up to ' +
      'three months, reduced instalments) and register the customer for it. Do not ask for documents on the phone.',
    tools: ['register_hardship', 'pause_dunning'],
    greeting:
      'Hello, I am the specialist for payment difficulties. Thank you for telling us; let us find a way together.',
  },
  campaignNames: ['Overdue balance Q2', 'Meter reading reminder', 'Smart meter upgrade offer'],
  testNames: [
    'Verifies account holder before amounts',
    'Offers hardship programme',
    'Repeats payment plan terms',
  ],
  urlParameters: (rng) => ({
    account_id: `VE${rng.digits(6)}`,
    first_name: rng.pick(firstNames),
    balance_eur: String(rng.int(40, 900)),
    dunning_level: String(rng.int(1, 3)),
  }),
}

export const domainScripts: readonly DomainScript[] = [dental, parcel, insurance, energy]

/** How the platform asks every agent to run a call, appended to its prompt. */
export const conversationFlow =
  '# Conversation flow\n' +
  '1. Greet the caller with the greeting of your business and say your name. On outbound calls, say why you are calling ' +
  'only after the person confirmed who they are.\n' +
  '2. Find out what the caller needs in their own words; ask at most one clarifying question before you act.\n' +
  '3. Verify the caller as described in your instructions before you look up, change or reveal anything personal.\n' +
  '4. Use your tools to get facts; never invent availability, amounts, statuses or reference numbers.\n' +
  '5. Propose one concrete next step, confirm the details, then perform it with the right tool.\n' +
  '6. Summarise what was agreed, including dates, amounts and reference numbers, and say what happens next.\n' +
  '7. Ask whether there is anything else; if not, thank the caller and say goodbye.\n' +
  'If the call is silent for ten seconds, ask whether the caller is still there; after twenty more seconds, say goodbye and end the call.'

/** House rules the platform appends to every agent prompt. */
export const voiceGuidelines =
  '# Voice guidelines\n' +
  '- You are talking on the phone or in a browser call: everything you write is spoken by a text-to-speech voice. Never use ' +
  'lists, markdown, emojis, URLs or abbreviations that cannot be pronounced.\n' +
  '- Keep turns short: one idea per turn, at most two sentences, then give the caller room to answer. Ask one question at a time.\n' +
  '- Numbers: say amounts in words with the currency, read phone numbers, references and codes in groups of two to four ' +
  'characters, and dates as weekday, day and month. Never read out internal identifiers such as slot, plan or record ids.\n' +
  '- If you did not understand the caller, say so and ask them to repeat; do not guess names, numbers or dates. If the line is ' +
  'bad, offer to call back.\n' +
  '- If the caller interrupts you, stop and answer what they said; do not repeat what you already said unless they ask.\n' +
  '- Before any tool call that changes something (booking, payment, claim, address), repeat the details and wait for a clear yes.\n' +
  '- While a tool is running, you may say a short filler such as "one moment, please"; never leave more than three seconds of silence.\n' +
  '- If a tool fails, apologise once, try again once, and otherwise offer a callback by a human colleague.\n' +
  '- Privacy: share personal or account data only after the caller has been verified as described above. Never ask for ' +
  'passwords, full card numbers or PINs.\n' +
  '- If the caller asks whether you are a human, say honestly that you are an AI assistant. If they want a human, offer the ' +
  'transfer or a callback within one working day.\n' +
  '- If the caller is abusive, warn once politely and end the call if it continues. If there is an emergency, tell them to ' +
  'hang up and call 112.\n' +
  '- End every call by summarising what was agreed and asking whether there is anything else; then say goodbye and stop.'

/** How agents often start an answer. */
export const assistantOpeners = [
  'Thank you.',
  'Alright.',
  'Okay, I see.',
  'Perfect, thanks.',
  'Got it.',
  'Understood.',
  'Thanks for your patience.',
]

/** What agents say while a tool runs, as their guidelines ask, so that the caller hears no dead air. */
export const toolFillers = [
  'One moment, please.',
  'Let me check that for you.',
  'Just a second, I am looking that up.',
  'Bear with me for a moment.',
]

/** How callers often start a turn. */
export const userOpeners = ['Yeah, so', 'Um,', 'Okay.', 'Right,', 'Hello?', 'Yes,']

/** Second sentences an agent often adds to its answer. */
export const assistantFollowUps = [
  'Is there anything else I can help you with today?',
  'Would you like me to send you a short confirmation by text message?',
  'Just so you know, you can also manage this yourself in the app at any time.',
  'Please let me know if any of the details I have are not correct.',
  'Take your time, I am still here.',
  'I will also note this in your file so my colleagues can see it.',
  'Does that sound good to you?',
]
