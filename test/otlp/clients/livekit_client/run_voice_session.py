"""LiveKit Agents 1.7.1's AgentSession in a voice call run here, with its tracing on.

The session is the framework's own: AgentSession with its audio recognition (VAD endpointing,
the STT streamed through the framework's StreamAdapter), its pipeline replies, TTS, playout and
interruptions, and its telemetry, enabled with livekit.agents.telemetry.set_tracer_provider.
Stood in (stand_ins.py): the caller's microphone (speech on a timeline), the VAD (energy), the STT
(the scripted words of the utterance it heard), the LLM (scripted replies, a tool call), the TTS
(silence as long as the text) and the loudspeaker (plays in real time). No room, no turn-detector
model: neither runs here without a server or a download.

    OTLP_TRACES_ENDPOINT=http://host/v1/traces OTLP_BEARER_TOKEN=... \\
        python -m livekit_client.run_voice_session out.json       # from test/otlp/clients/
"""

from __future__ import annotations

import asyncio
import sys

from livekit.agents import AgentSession, llm

from livekit_client.stand_ins import (
    CallerAudio,
    EnergyVAD,
    Reply,
    ScriptedLLM,
    ScriptedSTT,
    SilentTTS,
    Speaker,
    WeatherLine,
    text_of,
    traced_livekit,
)
from otlp_export import CollectingExporter, flush_and_write

WEATHER = "The weather in Tokyo is sunny today, 24 degrees."
# (start, end) seconds after the call's first audio frame, and the words
CALLER = [
    (4.5, 6.0, "What's the weather in Tokyo?"),
    (13.0, 14.5, "Tell me a story about the sea."),
    (18.0, 19.0, "Stop, that is enough."),
]
STORY = (
    "Once upon a time a small boat left the harbor at dawn. The sea was calm and the fishermen "
    "sang as they rowed, and then, far out, the wind began to rise."
)


def scripted_reply(chat_ctx: llm.ChatContext) -> Reply:
    last = chat_ctx.items[-1] if chat_ctx.items else None
    if last is not None and last.type == "function_call_output":
        return "It is sunny in Tokyo today, twenty-four degrees.", None
    if last is not None and last.type == "message" and last.role == "user":
        said = text_of(last)
        if said == CALLER[0][2]:
            return "Let me check that for you.", ("call_weather_1", "get_weather", '{"location": "Tokyo"}')
        if said == CALLER[1][2]:
            return STORY, None
        if said == CALLER[2][2]:
            return "Okay. Is there anything else I can do for you?", None
        return "Sorry, could you say that again?", None
    return "Hello, this is the Harbor Radio weather line. How can I help?", None


async def main(out_path: str) -> None:
    collector = CollectingExporter()
    provider = traced_livekit(collector)

    caller = CallerAudio([(start, end) for start, end, _ in CALLER])
    session = AgentSession(
        llm=ScriptedLLM(scripted_reply),
        stt=ScriptedSTT([words for _, _, words in CALLER]),
        tts=SilentTTS(),
        vad=EnergyVAD(),
        # VAD endpointing and VAD interruptions: the turn detector and the adaptive interruption
        # detector are models this machine cannot fetch.
        turn_handling={"turn_detection": "vad", "interruption": {"mode": "vad"}},
    )
    session.input.audio = caller
    session.output.audio = Speaker()
    await session.start(WeatherLine(WEATHER))
    await caller.finished.wait()
    await asyncio.sleep(4.0)  # the last reply played out
    await session.aclose()

    flush_and_write(provider, collector, out_path)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "livekit-voice-session.json"))
