"""LiveKit Agents 1.7.1's AgentSession run here in text mode, with its tracing on.

The session is the framework's own: AgentSession, two Agents, function tools (one answers, one
hands the call over to another agent), the session's pipeline replies and its telemetry, enabled
with livekit.agents.telemetry.set_tracer_provider. What it cannot have here is stood in for:
- the LLM: ScriptedLLM, a subclass of the framework's LLM whose LLMStream streams scripted chunks
  (text, or a tool call) chosen by the last item of the chat context, after a fixed time to first
  token, instead of calling a provider;
- the caller: user text turns given to session.run(user_input=...), as a text chat would send them.
No STT, TTS, VAD, audio or room: none runs without network services or models here.

    pip install -r ../requirements-livekit.txt
    OTLP_TRACES_ENDPOINT=http://host/v1/traces OTLP_BEARER_TOKEN=... \\
        python -m livekit_client.run_session out.json       # from test/otlp/clients/

Writes the spans it exported to out.json (an ExportTraceServiceRequest in OTLP JSON) and prints
one line: the number of spans and their names.
"""

from __future__ import annotations

import asyncio
import sys

from livekit.agents import Agent, AgentSession, RunContext, function_tool, llm

from livekit_client.stand_ins import Reply, ScriptedLLM, WeatherLine, instructions_of, text_of, traced_livekit
from otlp_export import CollectingExporter, flush_and_write

WEATHER = "The weather in Oslo is light rain today, 9 degrees."
TURNS = [
    "What's the weather in Oslo?",
    "Can I talk to someone about my invoice?",
    "Why was I charged twice in March?",
]


def scripted_reply(chat_ctx: llm.ChatContext) -> Reply:
    """The reply (text, tool call as call id/name/arguments) to the context's last item."""
    billing = "billing desk" in instructions_of(chat_ctx)
    last = chat_ctx.items[-1] if chat_ctx.items else None
    if last is not None and last.type == "function_call_output":
        if last.name == "get_weather":
            return "It is raining lightly in Oslo, nine degrees.", None
        return "", None
    if last is not None and last.type == "message" and last.role == "user":
        said = text_of(last)
        if said == TURNS[0]:
            return "Let me look that up.", ("call_oslo_1", "get_weather", '{"location": "Oslo"}')
        if said == TURNS[1]:
            return "", ("call_billing_1", "transfer_to_billing", "{}")
        if said == TURNS[2]:
            return "I see two charges on March 3rd; I have refunded the second one.", None
        return "Sorry, could you say that again?", None
    # No user message last: the agent speaks first (on_enter).
    if billing:
        return "This is the billing desk. What can I do for you?", None
    return "Hello, this is the Harbor Radio weather line. How can I help?", None


class BillingAgent(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You are the Harbor Radio billing desk. Explain charges briefly.")

    async def on_enter(self) -> None:
        self.session.generate_reply()


class WeatherAgent(WeatherLine):
    def __init__(self) -> None:
        super().__init__(WEATHER)

    @function_tool
    async def transfer_to_billing(self, context: RunContext) -> Agent:
        """Hands the caller over to the billing desk."""
        return BillingAgent()


async def main(out_path: str) -> None:
    collector = CollectingExporter()
    provider = traced_livekit(collector)

    session = AgentSession(llm=ScriptedLLM(scripted_reply))
    greeting = await session.start(WeatherAgent(), capture_run=True)
    await greeting
    for said in TURNS:
        await session.run(user_input=said)
    await session.aclose()

    flush_and_write(provider, collector, out_path)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "livekit-session.json"))
