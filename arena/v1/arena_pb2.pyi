from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "action")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: Action
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("ticket", "protocol_version", "bot_name", "events_in_decisions")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_IN_DECISIONS_FIELD_NUMBER: _ClassVar[int]
    ticket: str
    protocol_version: int
    bot_name: str
    events_in_decisions: bool
    def __init__(self, ticket: _Optional[str] = ..., protocol_version: _Optional[int] = ..., bot_name: _Optional[str] = ..., events_in_decisions: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("decision_id", "bid", "cards")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    bid: str
    cards: Cards
    def __init__(self, decision_id: _Optional[int] = ..., bid: _Optional[str] = ..., cards: _Optional[_Union[Cards, _Mapping]] = ..., **kwargs) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ("welcome", "event", "decision", "refused", "strike", "match_over", "snapshot", "events")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    event: Event
    decision: Decision
    refused: Refused
    strike: Strike
    match_over: MatchOver
    snapshot: Observation
    events: EventBatch
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., refused: _Optional[_Union[Refused, _Mapping]] = ..., strike: _Optional[_Union[Strike, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ..., snapshot: _Optional[_Union[Observation, _Mapping]] = ..., events: _Optional[_Union[EventBatch, _Mapping]] = ...) -> None: ...

class EventBatch(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("seat", "partner", "table", "preset", "protocol_version", "decision_ms", "bank_ms", "max_strikes", "max_hands", "resumed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDS_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    partner: int
    table: str
    preset: str
    protocol_version: int
    decision_ms: int
    bank_ms: int
    max_strikes: int
    max_hands: int
    resumed: bool
    def __init__(self, seat: _Optional[int] = ..., partner: _Optional[int] = ..., table: _Optional[str] = ..., preset: _Optional[str] = ..., protocol_version: _Optional[int] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., max_strikes: _Optional[int] = ..., max_hands: _Optional[int] = ..., resumed: _Optional[bool] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("sequence", "kind", "seat", "cards", "bid", "hidden", "details_json", "hand")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    DETAILS_JSON_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    kind: str
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    bid: str
    hidden: bool
    details_json: str
    hand: int
    def __init__(self, sequence: _Optional[int] = ..., kind: _Optional[str] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., bid: _Optional[str] = ..., hidden: _Optional[bool] = ..., details_json: _Optional[str] = ..., hand: _Optional[int] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "observation", "legal", "deadline_ms", "bank_ms", "strikes", "new_events")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    NEW_EVENTS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    observation: Observation
    legal: LegalMoves
    deadline_ms: int
    bank_ms: int
    strikes: int
    new_events: int
    def __init__(self, decision_id: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal: _Optional[_Union[LegalMoves, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., strikes: _Optional[int] = ..., new_events: _Optional[int] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "preset", "hand_number", "phase", "to_act", "dealer", "progress", "levels", "level", "hand", "trump_level", "trump_suit", "trump_known", "trick_leader", "trick", "tricks_done", "defenders_points", "throw_penalties", "events", "history")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRUMP_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_KNOWN_FIELD_NUMBER: _ClassVar[int]
    TRICK_LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_DONE_FIELD_NUMBER: _ClassVar[int]
    DEFENDERS_POINTS_FIELD_NUMBER: _ClassVar[int]
    THROW_PENALTIES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    preset: str
    hand_number: int
    phase: str
    to_act: int
    dealer: int
    progress: _containers.RepeatedScalarFieldContainer[int]
    levels: _containers.RepeatedScalarFieldContainer[str]
    level: str
    hand: _containers.RepeatedScalarFieldContainer[str]
    trump_level: str
    trump_suit: str
    trump_known: bool
    trick_leader: int
    trick: _containers.RepeatedCompositeFieldContainer[TrickPlay]
    tricks_done: int
    defenders_points: int
    throw_penalties: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    history: _containers.RepeatedCompositeFieldContainer[HandSummary]
    def __init__(self, seat: _Optional[int] = ..., preset: _Optional[str] = ..., hand_number: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[int] = ..., dealer: _Optional[int] = ..., progress: _Optional[_Iterable[int]] = ..., levels: _Optional[_Iterable[str]] = ..., level: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., trump_level: _Optional[str] = ..., trump_suit: _Optional[str] = ..., trump_known: _Optional[bool] = ..., trick_leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[TrickPlay, _Mapping]]] = ..., tricks_done: _Optional[int] = ..., defenders_points: _Optional[int] = ..., throw_penalties: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[HandSummary, _Mapping]]] = ...) -> None: ...

class TrickPlay(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class HandSummary(_message.Message):
    __slots__ = ("number", "dealer", "level", "trump_suit", "defenders_points", "progress", "note")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    DEFENDERS_POINTS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    level: str
    trump_suit: str
    defenders_points: int
    progress: _containers.RepeatedScalarFieldContainer[int]
    note: str
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., level: _Optional[str] = ..., trump_suit: _Optional[str] = ..., defenders_points: _Optional[int] = ..., progress: _Optional[_Iterable[int]] = ..., note: _Optional[str] = ...) -> None: ...

class LegalMoves(_message.Message):
    __slots__ = ("phase", "can_pass", "bids", "card_options")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CAN_PASS_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    CARD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    phase: str
    can_pass: bool
    bids: _containers.RepeatedScalarFieldContainer[str]
    card_options: _containers.RepeatedCompositeFieldContainer[CardOption]
    def __init__(self, phase: _Optional[str] = ..., can_pass: _Optional[bool] = ..., bids: _Optional[_Iterable[str]] = ..., card_options: _Optional[_Iterable[_Union[CardOption, _Mapping]]] = ...) -> None: ...

class CardOption(_message.Message):
    __slots__ = ("forced", "pool", "k_min", "k_max")
    FORCED_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    K_MIN_FIELD_NUMBER: _ClassVar[int]
    K_MAX_FIELD_NUMBER: _ClassVar[int]
    forced: _containers.RepeatedScalarFieldContainer[str]
    pool: _containers.RepeatedScalarFieldContainer[str]
    k_min: int
    k_max: int
    def __init__(self, forced: _Optional[_Iterable[str]] = ..., pool: _Optional[_Iterable[str]] = ..., k_min: _Optional[int] = ..., k_max: _Optional[int] = ...) -> None: ...

class Refused(_message.Message):
    __slots__ = ("decision_id", "reason", "code")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    reason: str
    code: str
    def __init__(self, decision_id: _Optional[int] = ..., reason: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class Strike(_message.Message):
    __slots__ = ("decision_id", "played", "strikes", "max_strikes")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    played: str
    strikes: int
    max_strikes: int
    def __init__(self, decision_id: _Optional[int] = ..., played: _Optional[str] = ..., strikes: _Optional[int] = ..., max_strikes: _Optional[int] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("winner", "hands", "progress", "forfeited_by", "reason", "reward")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    winner: int
    hands: int
    progress: _containers.RepeatedScalarFieldContainer[int]
    forfeited_by: int
    reason: str
    reward: int
    def __init__(self, winner: _Optional[int] = ..., hands: _Optional[int] = ..., progress: _Optional[_Iterable[int]] = ..., forfeited_by: _Optional[int] = ..., reason: _Optional[str] = ..., reward: _Optional[int] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("table", "token")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    table: str
    token: str
    def __init__(self, table: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...
