"""Stand-ins for what a LiveKit Agents 1.7.1 session would reach over the network or a device,
written for this project against the framework's own interfaces (livekit.agents llm, stt, tts,
vad, voice.io): a scripted LLM; for voice, the caller's audio, an energy VAD, a scripted STT, a
silent TTS and a loudspeaker. The runners (run_session.py: text mode; run_voice_session.py:
voice) give them their script."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from livekit import rtc
from livekit.agents import Agent, RunContext, function_tool, llm, stt, tts, vad
from livekit.agents import __version__ as livekit_agents_version
from livekit.agents.telemetry import set_tracer_provider
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, APIConnectOptions, NotGivenOr
from livekit.agents.utils import AudioBuffer
from livekit.agents.voice import io
from opentelemetry.sdk.trace import TracerProvider

from otlp_export import CollectingExporter, tracer_provider

def traced_livekit(collector: CollectingExporter) -> TracerProvider:
    """LiveKit's tracing switched on the documented way (set_tracer_provider), spans to `collector`
    and, with OTLP_TRACES_ENDPOINT set, to the receiver; the framework's version in the resource."""
    provider = tracer_provider("harbor-weather-agent", collector, framework_version=livekit_agents_version)
    set_tracer_provider(provider)
    return provider


class WeatherLine(Agent):
    """The weather line: greets first, answers the weather with its tool (`weather` is the answer)."""

    def __init__(self, weather: str) -> None:
        super().__init__(instructions="You are the weather line of Harbor Radio. Answer briefly.")
        self._weather = weather

    async def on_enter(self) -> None:
        self.session.generate_reply()

    @function_tool
    async def get_weather(self, context: RunContext, location: str) -> str:
        """The weather in a city.

        Args:
            location: the city
        """
        await asyncio.sleep(0.05)
        return self._weather


TIME_TO_FIRST_TOKEN = 0.12
SECONDS_PER_WORD = 0.01


def text_of(item: Any) -> str:
    content = getattr(item, "content", None) or []
    return " ".join(part for part in content if isinstance(part, str))


def instructions_of(chat_ctx: llm.ChatContext) -> str:
    for item in chat_ctx.items:
        if item.type == "message" and item.role in ("system", "developer"):
            return text_of(item)
    return ""


Reply = tuple[str, "tuple[str, str, str] | None"]


class StandIn:
    """The model and provider names a stand-in reports (spans carry them as gen_ai.*)."""

    model_name = "stand-in"

    @property
    def model(self) -> str:
        return self.model_name

    @property
    def provider(self) -> str:
        return "voice-analytics-test"


class ScriptedLLM(StandIn, llm.LLM):
    """The framework's LLM interface, answering from a script instead of a provider: `script`
    gives the reply (text, and a tool call as call id, name, arguments) to a chat context."""

    model_name = "scripted-llm"

    def __init__(self, script: Callable[[llm.ChatContext], Reply]) -> None:
        super().__init__()
        self.script = script

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        return ScriptedStream(self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)


class ScriptedStream(llm.LLMStream):
    async def _run(self) -> None:
        text, call = self._llm.script(self._chat_ctx)  # type: ignore[attr-defined]
        await asyncio.sleep(TIME_TO_FIRST_TOKEN)
        for index, word in enumerate(text.split(" ") if text else []):
            delta = llm.ChoiceDelta(role="assistant", content=word if index == 0 else " " + word)
            self._event_ch.send_nowait(llm.ChatChunk(id="scripted", delta=delta))
            await asyncio.sleep(SECONDS_PER_WORD)
        if call is not None:
            call_id, name, arguments = call
            tool_call = llm.FunctionToolCall(name=name, arguments=arguments, call_id=call_id)
            self._event_ch.send_nowait(
                llm.ChatChunk(id="scripted", delta=llm.ChoiceDelta(role="assistant", tool_calls=[tool_call]))
            )
        words = len(text.split(" ")) if text else 0
        usage = llm.CompletionUsage(completion_tokens=words + 4, prompt_tokens=90, total_tokens=words + 94)
        self._event_ch.send_nowait(llm.ChatChunk(id="scripted", usage=usage))


# ---- voice: the caller's audio, an energy VAD, a scripted STT, a silent TTS, a speaker ----
# The caller's speech is audio whose samples are a constant: SPEECH_LEVEL + the utterance's index
# in the script. The VAD finds speech by energy; the STT reads which utterance it heard from the
# level and answers with its words. Silence is zeros.

SAMPLE_RATE = 16000
FRAME_SECONDS = 0.02
SPEECH_LEVEL = 3000


def _pcm(level: int, samples: int) -> bytes:
    return int(level).to_bytes(2, "little", signed=True) * samples


class CallerAudio(io.AudioInput):
    """The caller's microphone: 20 ms frames in real time, speech where `timeline` says, silence
    elsewhere. `timeline` is (start, end) seconds from the first frame, one per utterance."""

    def __init__(self, timeline: list[tuple[float, float]]) -> None:
        super().__init__(label="caller")
        self._timeline = timeline
        self._origin: float | None = None
        self._sent = 0
        self.finished = asyncio.Event()

    async def __anext__(self) -> rtc.AudioFrame:
        if self._origin is None:
            self._origin = time.monotonic()
        at = self._sent * FRAME_SECONDS
        await asyncio.sleep(max(0.0, self._origin + at - time.monotonic()))
        self._sent += 1
        if at > self._timeline[-1][1] + 1.0:
            self.finished.set()
        level = next(
            (SPEECH_LEVEL + index for index, (start, end) in enumerate(self._timeline) if start <= at < end),
            0,
        )
        samples = int(SAMPLE_RATE * FRAME_SECONDS)
        return rtc.AudioFrame(_pcm(level, samples), SAMPLE_RATE, 1, samples)


def _level(frame: rtc.AudioFrame) -> int:
    data = bytes(frame.data.cast("B")) if hasattr(frame.data, "cast") else bytes(frame.data)
    return int.from_bytes(data[:2], "little", signed=True) if data else 0


class EnergyVAD(vad.VAD):
    """Speech where the audio is not silent: start after MIN_SPEECH, end after MIN_SILENCE."""

    MIN_SPEECH = 0.06
    MIN_SILENCE = 0.25

    def __init__(self) -> None:
        super().__init__(capabilities=vad.VADCapabilities(update_interval=FRAME_SECONDS))

    def stream(self) -> vad.VADStream:
        return EnergyVADStream(self)


class EnergyVADStream(vad.VADStream):
    async def _main_task(self) -> None:
        speaking = False
        speech: list[rtc.AudioFrame] = []
        speech_seconds = silence_seconds = 0.0
        samples = 0
        async for frame in self._input_ch:
            if isinstance(frame, vad.VADStream._FlushSentinel):
                speaking, speech, speech_seconds, silence_seconds = False, [], 0.0, 0.0
                continue
            samples += frame.samples_per_channel
            loud = _level(frame) != 0
            seconds = frame.samples_per_channel / frame.sample_rate
            if loud:
                speech.append(frame)
                speech_seconds += seconds
                silence_seconds = 0.0
            else:
                silence_seconds += seconds
                if not speaking:
                    speech, speech_seconds = [], 0.0

            def event(kind: vad.VADEventType, frames: list[rtc.AudioFrame]) -> vad.VADEvent:
                return vad.VADEvent(
                    type=kind,
                    samples_index=samples,
                    timestamp=time.time(),
                    speech_duration=speech_seconds,
                    silence_duration=silence_seconds,
                    frames=frames,
                    probability=1.0 if loud else 0.0,
                    speaking=speaking,
                )

            if not speaking and speech_seconds >= EnergyVAD.MIN_SPEECH:
                speaking = True
                self._event_ch.send_nowait(event(vad.VADEventType.START_OF_SPEECH, list(speech)))
            self._event_ch.send_nowait(event(vad.VADEventType.INFERENCE_DONE, [frame]))
            if speaking and silence_seconds >= EnergyVAD.MIN_SILENCE:
                speaking = False
                self._event_ch.send_nowait(event(vad.VADEventType.END_OF_SPEECH, list(speech)))
                speech, speech_seconds = [], 0.0


class ScriptedSTT(StandIn, stt.STT):
    """A batch STT (the framework streams it with the VAD): the words of the utterance it heard."""

    model_name = "scripted-stt"

    def __init__(self, utterances: list[str], delay: float = 0.1) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=False, interim_results=False))
        self._utterances = utterances
        self._delay = delay

    async def _recognize_impl(
        self,
        buffer: AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> stt.SpeechEvent:
        frames = buffer if isinstance(buffer, list) else [buffer]
        levels = [_level(frame) for frame in frames if _level(frame) != 0]
        await asyncio.sleep(self._delay)
        index = levels[0] - SPEECH_LEVEL if levels else -1
        text = self._utterances[index] if 0 <= index < len(self._utterances) else ""
        return stt.SpeechEvent(
            type=stt.SpeechEventType.FINAL_TRANSCRIPT,
            alternatives=[stt.SpeechData(language="en", text=text, confidence=0.92 if text else 0.0)],
        )


class SilentTTS(StandIn, tts.TTS):
    """Silence as long as the text would take to say, after a fixed time to first byte."""

    model_name = "silent-tts"

    TTFB = 0.15
    SECONDS_PER_CHARACTER = 0.05

    def __init__(self) -> None:
        super().__init__(capabilities=tts.TTSCapabilities(streaming=False), sample_rate=24000, num_channels=1)

    def synthesize(self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS) -> tts.ChunkedStream:
        return SilentChunkedStream(tts=self, input_text=text, conn_options=conn_options)


class SilentChunkedStream(tts.ChunkedStream):
    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        await asyncio.sleep(SilentTTS.TTFB)
        output_emitter.initialize(
            request_id="silent", sample_rate=24000, num_channels=1, mime_type="audio/pcm"
        )
        samples = int(len(self.input_text) * SilentTTS.SECONDS_PER_CHARACTER * 24000)
        output_emitter.push(_pcm(0, samples))
        output_emitter.flush()


class Speaker(io.AudioOutput):
    """The caller's loudspeaker: plays what it is given in real time; says when a segment started
    and finished playing, or was cut (clear_buffer)."""

    def __init__(self) -> None:
        super().__init__(label="speaker", capabilities=io.AudioOutputCapabilities(pause=False))
        self._queued = 0.0
        self._started_at: float | None = None
        self._done: asyncio.Task[None] | None = None

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        if self._started_at is None:
            self._started_at = time.time()
            self.on_playback_started(created_at=self._started_at)
        self._queued += frame.samples_per_channel / frame.sample_rate

    def flush(self) -> None:
        super().flush()
        if self._started_at is not None and self._done is None:
            self._done = asyncio.create_task(self._play_out())

    async def _play_out(self) -> None:
        assert self._started_at is not None
        await asyncio.sleep(max(0.0, self._started_at + self._queued - time.time()))
        played = self._queued
        self._reset()
        self.on_playback_finished(playback_position=played, interrupted=False)

    def clear_buffer(self) -> None:
        if self._started_at is None:
            return
        played = min(self._queued, time.time() - self._started_at)
        if self._done is not None:
            self._done.cancel()
        self._reset()
        self.on_playback_finished(playback_position=played, interrupted=True)

    def _reset(self) -> None:
        self._queued = 0.0
        self._started_at = None
        self._done = None
