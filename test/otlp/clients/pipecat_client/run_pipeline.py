"""A Pipecat voice pipeline run here, without network services, with its tracing on.

The pipeline is Pipecat's own: PipelineWorker(enable_tracing=True) with its turn, latency and
turn-trace observers, the universal LLMContextAggregatorPair (user turn strategies, function
calling), OpenAILLMService's real _process_context, and STT/TTS services built on Pipecat's
STTService/TTSService with its @traced_stt/@traced_tts decorators. Only what would talk to the
outside is stood in for:
- the caller: a processor at the head of the pipeline that plays VAD events and audio markers on a
  timeline, as a transport with VAD would;
- the STT: turns the caller's scripted words into TranscriptionFrames after a fixed delay;
- the LLM provider: OpenAILLMService.get_chat_completions returns scripted streamed chunks
  (text, or a tool call) instead of calling the API;
- the TTS: silent PCM at a speaking rate, after a fixed time to first byte;
- the speaker: a processor that "plays" the audio in real time and says when the bot starts and
  stops speaking (BotStarted/StoppedSpeakingFrame), as the output transport does.

    pip install "pipecat-ai[tracing]==1.7.0" opentelemetry-exporter-otlp-proto-http
    python -m pipecat_client.run_pipeline out.json       # from test/otlp/clients/
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from openai.types.chat import ChatCompletionChunk
from opentelemetry import trace

from pipecat.adapters.schemas.function_schema import FunctionSchema
from pipecat.adapters.schemas.tools_schema import ToolsSchema
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMRunFrame,
    StartFrame,
    SystemFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.workers.runner import WorkerRunner
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import FunctionCallParams
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.services.stt_service import STTService
from pipecat.services.settings import STTSettings, TTSSettings
from pipecat.services.tts_service import TTSService
from pipecat.turns.user_start.vad_user_turn_start_strategy import VADUserTurnStartStrategy
from pipecat.turns.user_stop.speech_timeout_user_turn_stop_strategy import (
    SpeechTimeoutUserTurnStopStrategy,
)
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils import string as pipecat_string
from pipecat.utils.time import time_now_iso8601
from pipecat.utils.tracing.service_decorators import traced_stt, traced_tts

from otlp_export import CollectingExporter, flush_and_write, tracer_provider


def _sentences(text: str) -> list[str]:
    return [part for part in re.split(r"(?<=[.!?])\s+", text.strip()) if part]


# Pipecat finds sentence ends with NLTK's punkt_tab data, which it downloads from the network at
# first use (pipecat/utils/string.py); a regular expression stands in for it here.
pipecat_string.sent_tokenize = _sentences

SAMPLE_RATE = 16000
VAD_START_SECS = 0.2
VAD_STOP_SECS = 0.2
STT_AFTER_VAD = 0.12
TTS_TTFB = 0.18
SECONDS_PER_CHAR = 0.05
WEATHER = "The weather in Tokyo is sunny today, 24 degrees."

# (start, end, words) of the caller's speech, seconds from the start of the call
CALLER = [
    (4.5, 6.0, "What's the weather in Tokyo?"),
    (12.0, 13.5, "Tell me a story about the sea."),
    (16.5, 17.5, "Stop, that is enough."),
]

# the LLM's answers, by the text of the last message in the context
REPLIES: dict[str, dict] = {
    "Greet the caller and offer help with the weather.": {
        "text": "Hello, this is the Harbor Radio weather line. How can I help?"
    },
    "What's the weather in Tokyo?": {
        "text": "Let me check that for you.",
        "tool_call": ("call_weather_1", "get_weather", '{"location": "Tokyo"}'),
    },
    WEATHER: {"text": "It is sunny in Tokyo today, twenty-four degrees."},
    "Tell me a story about the sea.": {
        "text": "Once upon a time a small boat left the harbor at dawn. The sea was calm and the "
        "fishermen sang as they rowed, and then, far out, the wind began to rise."
    },
    "Stop, that is enough.": {"text": "Okay. Is there anything else I can do for you?"},
}


@dataclass
class ScriptedSpeech(SystemFrame):
    """Marks, for the stand-in STT, the words the caller just said."""

    text: str = ""


class Caller(FrameProcessor):
    """Plays the caller's side: VAD start/stop on the timeline, words for the STT."""

    def __init__(self) -> None:
        super().__init__()
        self.done = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self.create_task(self._play(), name="caller")

    async def _play(self) -> None:
        origin = time.time()
        for start, end, words in CALLER:
            await asyncio.sleep(max(0.0, origin + start + VAD_START_SECS - time.time()))
            await self.push_frame(
                VADUserStartedSpeakingFrame(start_secs=VAD_START_SECS, timestamp=time.time())
            )
            await asyncio.sleep(max(0.0, origin + end + VAD_STOP_SECS - time.time()))
            await self.push_frame(
                VADUserStoppedSpeakingFrame(stop_secs=VAD_STOP_SECS, timestamp=time.time())
            )
            await self.push_frame(ScriptedSpeech(words))
        await asyncio.sleep(6)  # > the turn-end timeout (2.5 s) after the bot's last words
        self.done.set()


class StandInSTT(STTService):
    """Transcribes the caller's scripted words STT_AFTER_VAD after the VAD said the speech ended."""

    def __init__(self) -> None:
        super().__init__(settings=STTSettings(model="standin-stt", language="en"))

    def can_generate_metrics(self) -> bool:
        return True

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, ScriptedSpeech):
            await asyncio.sleep(STT_AFTER_VAD)
            await self.push_frame(
                TranscriptionFrame(
                    frame.text, "caller-1", time_now_iso8601(), finalized=True
                )
            )
            return
        await super().process_frame(frame, direction)

    @traced_stt
    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
        yield None  # the audio is silence; the words come as ScriptedSpeech


class StandInTTS(TTSService):
    """Silent PCM at a speaking rate, after TTS_TTFB."""

    def __init__(self, **kwargs) -> None:
        super().__init__(
            push_start_frame=True,
            push_stop_frames=True,
            sample_rate=SAMPLE_RATE,
            settings=TTSSettings(model="standin-tts", voice="harbor", language="en"),
            **kwargs,
        )

    def can_generate_metrics(self) -> bool:
        return True

    @traced_tts
    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame, None]:
        await asyncio.sleep(TTS_TTFB)
        await self.stop_ttfb_metrics()
        samples = int(len(text) * SECONDS_PER_CHAR * SAMPLE_RATE)
        chunk = SAMPLE_RATE // 5  # 200 ms
        for offset in range(0, samples, chunk):
            n = min(chunk, samples - offset)
            yield TTSAudioRawFrame(b"\x00\x00" * n, SAMPLE_RATE, 1, context_id=context_id)


class StandInOpenAI(OpenAILLMService):
    """OpenAILLMService with the provider's streamed answer scripted (no API call)."""

    async def get_chat_completions(self, context: LLMContext):
        messages = context.get_messages()
        last = messages[-1]
        key = last.get("content") if isinstance(last.get("content"), str) else ""
        if last.get("role") == "tool":
            key = json.loads(key)  # Pipecat stores a tool's result JSON-encoded
        reply = REPLIES.get(key, {"text": "Sorry, could you say that again?"})
        return _stream(reply)


async def _stream(reply: dict):
    base = {"id": "chatcmpl-standin", "created": int(time.time()), "model": "gpt-4o-mini", "object": "chat.completion.chunk"}
    await asyncio.sleep(0.35)  # time to first token
    for word in reply["text"].split(" "):
        yield ChatCompletionChunk.model_validate(
            {**base, "choices": [{"index": 0, "delta": {"content": word + " "}}]}
        )
        await asyncio.sleep(0.02)
    if "tool_call" in reply:
        call_id, name, arguments = reply["tool_call"]
        yield ChatCompletionChunk.model_validate(
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                            ]
                        },
                    }
                ],
            }
        )
    yield ChatCompletionChunk.model_validate(
        {**base, "choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 18, "total_tokens": 138}}
    )


class Speaker(FrameProcessor):
    """Plays the bot's audio in real time; says when the bot starts and stops speaking."""

    def __init__(self) -> None:
        super().__init__()
        self._playout_end = 0.0
        self._speaking = False
        self._stop_task: asyncio.Task | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            now = time.time()
            if not self._speaking:
                self._speaking = True
                self._playout_end = now
                await self.broadcast_frame(BotStartedSpeakingFrame)
            self._playout_end = max(self._playout_end, now) + len(frame.audio) / 2 / frame.sample_rate
            if self._stop_task is None:
                self._stop_task = self.create_task(self._stop_when_played(), name="speaker")
            return
        if isinstance(frame, InterruptionFrame) and self._speaking:
            await self._stop()
        await self.push_frame(frame, direction)

    async def _stop_when_played(self) -> None:
        while time.time() < self._playout_end:
            await asyncio.sleep(max(0.01, self._playout_end - time.time()))
        self._stop_task = None
        if self._speaking:
            self._speaking = False
            await self.broadcast_frame(BotStoppedSpeakingFrame)

    async def _stop(self) -> None:
        if self._stop_task is not None:
            await self.cancel_task(self._stop_task)
            self._stop_task = None
        self._speaking = False
        await self.broadcast_frame(BotStoppedSpeakingFrame)


async def get_weather(params: FunctionCallParams) -> None:
    await asyncio.sleep(0.3)
    await params.result_callback(WEATHER)


async def main(out_path: str) -> None:
    collector = CollectingExporter()
    provider = tracer_provider("harbor-weather-bot", collector)
    trace.set_tracer_provider(provider)

    llm = StandInOpenAI(
        api_key="stand-in",
        settings=OpenAILLMService.Settings(
            model="gpt-4o-mini",
            system_instruction="You are the weather line of Harbor Radio. Answer briefly.",
        ),
    )
    llm.register_function("get_weather", get_weather)
    tools = ToolsSchema(
        standard_tools=[
            FunctionSchema(
                name="get_weather",
                description="The weather in a city.",
                properties={"location": {"type": "string"}},
                required=["location"],
            )
        ]
    )
    context = LLMContext(
        messages=[{"role": "user", "content": "Greet the caller and offer help with the weather."}],
        tools=tools,
    )
    aggregators = LLMContextAggregatorPair(
        context,
        user_params=LLMUserAggregatorParams(
            user_turn_strategies=UserTurnStrategies(
                start=[VADUserTurnStartStrategy()],
                stop=[SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=0.2)],
            )
        ),
    )
    caller = Caller()
    pipeline = Pipeline(
        [caller, StandInSTT(), aggregators.user(), llm, StandInTTS(), Speaker(), aggregators.assistant()]
    )
    worker = PipelineWorker(
        pipeline,
        params=PipelineParams(enable_metrics=True, enable_usage_metrics=True),
        enable_tracing=True,
        conversation_id="c2b1e7a4-5d0f-4f3e-9a51-0d6c2f8e1b37",
        additional_span_attributes={"call.direction": "inbound"},
        cancel_on_idle_timeout=False,
    )

    async def finish() -> None:
        await worker.queue_frame(LLMRunFrame())
        await caller.done.wait()
        await worker.queue_frame(EndFrame())

    runner = WorkerRunner(handle_sigint=False)
    await asyncio.gather(runner.run(worker), finish())

    flush_and_write(provider, collector, out_path)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "pipecat-conversation.json"))
