from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RefusalCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REFUSAL_CODE_UNSPECIFIED: _ClassVar[RefusalCode]
    REFUSAL_CODE_ILLEGAL: _ClassVar[RefusalCode]
    REFUSAL_CODE_MALFORMED: _ClassVar[RefusalCode]
    REFUSAL_CODE_STALE: _ClassVar[RefusalCode]
    REFUSAL_CODE_NOT_YOUR_TURN: _ClassVar[RefusalCode]

class Ending(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENDING_UNSPECIFIED: _ClassVar[Ending]
    ENDING_PLAYED_OUT: _ClassVar[Ending]
    ENDING_FORFEIT: _ClassVar[Ending]
    ENDING_STOPPED: _ClassVar[Ending]
    ENDING_FAILED: _ClassVar[Ending]

class BidKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BID_KIND_UNSPECIFIED: _ClassVar[BidKind]
    BID_KIND_SINGLE: _ClassVar[BidKind]
    BID_KIND_SUIT_PAIR: _ClassVar[BidKind]
    BID_KIND_SMALL_JOKERS: _ClassVar[BidKind]
    BID_KIND_BIG_JOKERS: _ClassVar[BidKind]
    BID_KIND_RED_FIVES: _ClassVar[BidKind]
    BID_KIND_HUITOUWANG: _ClassVar[BidKind]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_DECLARE: _ClassVar[Phase]
    PHASE_BURY: _ClassVar[Phase]
    PHASE_FRY: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]

class HeavenEarth(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HEAVEN_EARTH_UNSPECIFIED: _ClassVar[HeavenEarth]
    HEAVEN_EARTH_DEALERS: _ClassVar[HeavenEarth]
    HEAVEN_EARTH_DEFENDERS: _ClassVar[HeavenEarth]

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_2: _ClassVar[Rank]
    RANK_3: _ClassVar[Rank]
    RANK_4: _ClassVar[Rank]
    RANK_5: _ClassVar[Rank]
    RANK_6: _ClassVar[Rank]
    RANK_7: _ClassVar[Rank]
    RANK_8: _ClassVar[Rank]
    RANK_9: _ClassVar[Rank]
    RANK_10: _ClassVar[Rank]
    RANK_JACK: _ClassVar[Rank]
    RANK_QUEEN: _ClassVar[Rank]
    RANK_KING: _ClassVar[Rank]
    RANK_ACE: _ClassVar[Rank]

class Card(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CARD_UNSPECIFIED: _ClassVar[Card]
    CARD_SPADES_2: _ClassVar[Card]
    CARD_SPADES_3: _ClassVar[Card]
    CARD_SPADES_4: _ClassVar[Card]
    CARD_SPADES_5: _ClassVar[Card]
    CARD_SPADES_6: _ClassVar[Card]
    CARD_SPADES_7: _ClassVar[Card]
    CARD_SPADES_8: _ClassVar[Card]
    CARD_SPADES_9: _ClassVar[Card]
    CARD_SPADES_10: _ClassVar[Card]
    CARD_SPADES_JACK: _ClassVar[Card]
    CARD_SPADES_QUEEN: _ClassVar[Card]
    CARD_SPADES_KING: _ClassVar[Card]
    CARD_SPADES_ACE: _ClassVar[Card]
    CARD_HEARTS_2: _ClassVar[Card]
    CARD_HEARTS_3: _ClassVar[Card]
    CARD_HEARTS_4: _ClassVar[Card]
    CARD_HEARTS_5: _ClassVar[Card]
    CARD_HEARTS_6: _ClassVar[Card]
    CARD_HEARTS_7: _ClassVar[Card]
    CARD_HEARTS_8: _ClassVar[Card]
    CARD_HEARTS_9: _ClassVar[Card]
    CARD_HEARTS_10: _ClassVar[Card]
    CARD_HEARTS_JACK: _ClassVar[Card]
    CARD_HEARTS_QUEEN: _ClassVar[Card]
    CARD_HEARTS_KING: _ClassVar[Card]
    CARD_HEARTS_ACE: _ClassVar[Card]
    CARD_CLUBS_2: _ClassVar[Card]
    CARD_CLUBS_3: _ClassVar[Card]
    CARD_CLUBS_4: _ClassVar[Card]
    CARD_CLUBS_5: _ClassVar[Card]
    CARD_CLUBS_6: _ClassVar[Card]
    CARD_CLUBS_7: _ClassVar[Card]
    CARD_CLUBS_8: _ClassVar[Card]
    CARD_CLUBS_9: _ClassVar[Card]
    CARD_CLUBS_10: _ClassVar[Card]
    CARD_CLUBS_JACK: _ClassVar[Card]
    CARD_CLUBS_QUEEN: _ClassVar[Card]
    CARD_CLUBS_KING: _ClassVar[Card]
    CARD_CLUBS_ACE: _ClassVar[Card]
    CARD_DIAMONDS_2: _ClassVar[Card]
    CARD_DIAMONDS_3: _ClassVar[Card]
    CARD_DIAMONDS_4: _ClassVar[Card]
    CARD_DIAMONDS_5: _ClassVar[Card]
    CARD_DIAMONDS_6: _ClassVar[Card]
    CARD_DIAMONDS_7: _ClassVar[Card]
    CARD_DIAMONDS_8: _ClassVar[Card]
    CARD_DIAMONDS_9: _ClassVar[Card]
    CARD_DIAMONDS_10: _ClassVar[Card]
    CARD_DIAMONDS_JACK: _ClassVar[Card]
    CARD_DIAMONDS_QUEEN: _ClassVar[Card]
    CARD_DIAMONDS_KING: _ClassVar[Card]
    CARD_DIAMONDS_ACE: _ClassVar[Card]
    CARD_SMALL_JOKER: _ClassVar[Card]
    CARD_BIG_JOKER: _ClassVar[Card]
REFUSAL_CODE_UNSPECIFIED: RefusalCode
REFUSAL_CODE_ILLEGAL: RefusalCode
REFUSAL_CODE_MALFORMED: RefusalCode
REFUSAL_CODE_STALE: RefusalCode
REFUSAL_CODE_NOT_YOUR_TURN: RefusalCode
ENDING_UNSPECIFIED: Ending
ENDING_PLAYED_OUT: Ending
ENDING_FORFEIT: Ending
ENDING_STOPPED: Ending
ENDING_FAILED: Ending
BID_KIND_UNSPECIFIED: BidKind
BID_KIND_SINGLE: BidKind
BID_KIND_SUIT_PAIR: BidKind
BID_KIND_SMALL_JOKERS: BidKind
BID_KIND_BIG_JOKERS: BidKind
BID_KIND_RED_FIVES: BidKind
BID_KIND_HUITOUWANG: BidKind
PHASE_UNSPECIFIED: Phase
PHASE_DECLARE: Phase
PHASE_BURY: Phase
PHASE_FRY: Phase
PHASE_PLAY: Phase
PHASE_OVER: Phase
HEAVEN_EARTH_UNSPECIFIED: HeavenEarth
HEAVEN_EARTH_DEALERS: HeavenEarth
HEAVEN_EARTH_DEFENDERS: HeavenEarth
SUIT_UNSPECIFIED: Suit
SUIT_SPADES: Suit
SUIT_HEARTS: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
RANK_UNSPECIFIED: Rank
RANK_2: Rank
RANK_3: Rank
RANK_4: Rank
RANK_5: Rank
RANK_6: Rank
RANK_7: Rank
RANK_8: Rank
RANK_9: Rank
RANK_10: Rank
RANK_JACK: Rank
RANK_QUEEN: Rank
RANK_KING: Rank
RANK_ACE: Rank
CARD_UNSPECIFIED: Card
CARD_SPADES_2: Card
CARD_SPADES_3: Card
CARD_SPADES_4: Card
CARD_SPADES_5: Card
CARD_SPADES_6: Card
CARD_SPADES_7: Card
CARD_SPADES_8: Card
CARD_SPADES_9: Card
CARD_SPADES_10: Card
CARD_SPADES_JACK: Card
CARD_SPADES_QUEEN: Card
CARD_SPADES_KING: Card
CARD_SPADES_ACE: Card
CARD_HEARTS_2: Card
CARD_HEARTS_3: Card
CARD_HEARTS_4: Card
CARD_HEARTS_5: Card
CARD_HEARTS_6: Card
CARD_HEARTS_7: Card
CARD_HEARTS_8: Card
CARD_HEARTS_9: Card
CARD_HEARTS_10: Card
CARD_HEARTS_JACK: Card
CARD_HEARTS_QUEEN: Card
CARD_HEARTS_KING: Card
CARD_HEARTS_ACE: Card
CARD_CLUBS_2: Card
CARD_CLUBS_3: Card
CARD_CLUBS_4: Card
CARD_CLUBS_5: Card
CARD_CLUBS_6: Card
CARD_CLUBS_7: Card
CARD_CLUBS_8: Card
CARD_CLUBS_9: Card
CARD_CLUBS_10: Card
CARD_CLUBS_JACK: Card
CARD_CLUBS_QUEEN: Card
CARD_CLUBS_KING: Card
CARD_CLUBS_ACE: Card
CARD_DIAMONDS_2: Card
CARD_DIAMONDS_3: Card
CARD_DIAMONDS_4: Card
CARD_DIAMONDS_5: Card
CARD_DIAMONDS_6: Card
CARD_DIAMONDS_7: Card
CARD_DIAMONDS_8: Card
CARD_DIAMONDS_9: Card
CARD_DIAMONDS_10: Card
CARD_DIAMONDS_JACK: Card
CARD_DIAMONDS_QUEEN: Card
CARD_DIAMONDS_KING: Card
CARD_DIAMONDS_ACE: Card
CARD_SMALL_JOKER: Card
CARD_BIG_JOKER: Card

class EnterRequest(_message.Message):
    __slots__ = ("token", "protocol_version", "bot_name", "capacity", "instance", "bot_version")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    token: str
    protocol_version: int
    bot_name: str
    capacity: int
    instance: str
    bot_version: str
    def __init__(self, token: _Optional[str] = ..., protocol_version: _Optional[int] = ..., bot_name: _Optional[str] = ..., capacity: _Optional[int] = ..., instance: _Optional[str] = ..., bot_version: _Optional[str] = ...) -> None: ...

class EnterResponse(_message.Message):
    __slots__ = ("entered", "seat")
    ENTERED_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    entered: Entered
    seat: SeatOffer
    def __init__(self, entered: _Optional[_Union[Entered, _Mapping]] = ..., seat: _Optional[_Union[SeatOffer, _Mapping]] = ...) -> None: ...

class Entered(_message.Message):
    __slots__ = ("session", "capacity", "protocol_version")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    capacity: int
    protocol_version: int
    def __init__(self, session: _Optional[str] = ..., capacity: _Optional[int] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class SeatOffer(_message.Message):
    __slots__ = ("ticket", "seat", "preset")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    ticket: str
    seat: int
    preset: str
    def __init__(self, ticket: _Optional[str] = ..., seat: _Optional[int] = ..., preset: _Optional[str] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("hello", "answer")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    answer: Answer
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("ticket", "protocol_version", "bot_name")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    ticket: str
    protocol_version: int
    bot_name: str
    def __init__(self, ticket: _Optional[str] = ..., protocol_version: _Optional[int] = ..., bot_name: _Optional[str] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("decision_id", "action", "note", "fallback")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    action: Action
    note: str
    fallback: bool
    def __init__(self, decision_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., note: _Optional[str] = ..., fallback: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("pass_turn", "declare", "fry", "bury", "play")
    PASS_TURN_FIELD_NUMBER: _ClassVar[int]
    DECLARE_FIELD_NUMBER: _ClassVar[int]
    FRY_FIELD_NUMBER: _ClassVar[int]
    BURY_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    pass_turn: Pass
    declare: Bid
    fry: Bid
    bury: Cards
    play: Cards
    def __init__(self, pass_turn: _Optional[_Union[Pass, _Mapping]] = ..., declare: _Optional[_Union[Bid, _Mapping]] = ..., fry: _Optional[_Union[Bid, _Mapping]] = ..., bury: _Optional[_Union[Cards, _Mapping]] = ..., play: _Optional[_Union[Cards, _Mapping]] = ...) -> None: ...

class Pass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("welcome", "snapshot", "decision", "refused", "strike", "match_over")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    snapshot: Snapshot
    decision: Decision
    refused: Refused
    strike: Strike
    match_over: MatchOver
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., refused: _Optional[_Union[Refused, _Mapping]] = ..., strike: _Optional[_Union[Strike, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...

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

class Snapshot(_message.Message):
    __slots__ = ("seat", "preset", "hand_number", "phase", "to_act", "dealer", "progress", "must_played", "level", "hand", "trump", "trick", "tricks_done", "defenders_points", "throw_penalties", "history", "events", "cursor", "over", "winner", "reward")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    MUST_PLAYED_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_DONE_FIELD_NUMBER: _ClassVar[int]
    DEFENDERS_POINTS_FIELD_NUMBER: _ClassVar[int]
    THROW_PENALTIES_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    preset: str
    hand_number: int
    phase: Phase
    to_act: int
    dealer: int
    progress: _containers.RepeatedScalarFieldContainer[int]
    must_played: _containers.RepeatedCompositeFieldContainer[Levels]
    level: Rank
    hand: _containers.RepeatedScalarFieldContainer[Card]
    trump: Trump
    trick: TableTrick
    tricks_done: int
    defenders_points: int
    throw_penalties: int
    history: _containers.RepeatedCompositeFieldContainer[HandRecord]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    cursor: int
    over: bool
    winner: int
    reward: int
    def __init__(self, seat: _Optional[int] = ..., preset: _Optional[str] = ..., hand_number: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., dealer: _Optional[int] = ..., progress: _Optional[_Iterable[int]] = ..., must_played: _Optional[_Iterable[_Union[Levels, _Mapping]]] = ..., level: _Optional[_Union[Rank, str]] = ..., hand: _Optional[_Iterable[_Union[Card, str]]] = ..., trump: _Optional[_Union[Trump, _Mapping]] = ..., trick: _Optional[_Union[TableTrick, _Mapping]] = ..., tricks_done: _Optional[int] = ..., defenders_points: _Optional[int] = ..., throw_penalties: _Optional[int] = ..., history: _Optional[_Iterable[_Union[HandRecord, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., cursor: _Optional[int] = ..., over: _Optional[bool] = ..., winner: _Optional[int] = ..., reward: _Optional[int] = ...) -> None: ...

class Levels(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, progress: _Optional[_Iterable[int]] = ...) -> None: ...

class Trump(_message.Message):
    __slots__ = ("level", "suit")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    level: Rank
    suit: Suit
    def __init__(self, level: _Optional[_Union[Rank, str]] = ..., suit: _Optional[_Union[Suit, str]] = ...) -> None: ...

class TableTrick(_message.Message):
    __slots__ = ("leader", "plays")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[TrickPlay]
    def __init__(self, leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[TrickPlay, _Mapping]]] = ...) -> None: ...

class TrickPlay(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class HandRecord(_message.Message):
    __slots__ = ("number", "dealer", "level", "trump", "result", "total", "progress_before", "progress_after", "next_dealer", "note")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_AFTER_FIELD_NUMBER: _ClassVar[int]
    NEXT_DEALER_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    level: Rank
    trump: Suit
    result: HandResult
    total: int
    progress_before: _containers.RepeatedScalarFieldContainer[int]
    progress_after: _containers.RepeatedScalarFieldContainer[int]
    next_dealer: int
    note: str
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., level: _Optional[_Union[Rank, str]] = ..., trump: _Optional[_Union[Suit, str]] = ..., result: _Optional[_Union[HandResult, _Mapping]] = ..., total: _Optional[int] = ..., progress_before: _Optional[_Iterable[int]] = ..., progress_after: _Optional[_Iterable[int]] = ..., next_dealer: _Optional[int] = ..., note: _Optional[str] = ...) -> None: ...

class HandResult(_message.Message):
    __slots__ = ("dealer", "trick_points", "kitty_points", "kitty_multiplier", "throw_penalty", "fry_penalty", "red_five", "heaven_earth", "last_winner", "last_play", "floor_at_zero")
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TRICK_POINTS_FIELD_NUMBER: _ClassVar[int]
    KITTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    KITTY_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    THROW_PENALTY_FIELD_NUMBER: _ClassVar[int]
    FRY_PENALTY_FIELD_NUMBER: _ClassVar[int]
    RED_FIVE_FIELD_NUMBER: _ClassVar[int]
    HEAVEN_EARTH_FIELD_NUMBER: _ClassVar[int]
    LAST_WINNER_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAY_FIELD_NUMBER: _ClassVar[int]
    FLOOR_AT_ZERO_FIELD_NUMBER: _ClassVar[int]
    dealer: int
    trick_points: int
    kitty_points: int
    kitty_multiplier: int
    throw_penalty: int
    fry_penalty: int
    red_five: int
    heaven_earth: HeavenEarth
    last_winner: int
    last_play: _containers.RepeatedScalarFieldContainer[Card]
    floor_at_zero: bool
    def __init__(self, dealer: _Optional[int] = ..., trick_points: _Optional[int] = ..., kitty_points: _Optional[int] = ..., kitty_multiplier: _Optional[int] = ..., throw_penalty: _Optional[int] = ..., fry_penalty: _Optional[int] = ..., red_five: _Optional[int] = ..., heaven_earth: _Optional[_Union[HeavenEarth, str]] = ..., last_winner: _Optional[int] = ..., last_play: _Optional[_Iterable[_Union[Card, str]]] = ..., floor_at_zero: _Optional[bool] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "events", "legal", "deadline_ms", "bank_ms", "strikes", "cursor")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    legal: LegalActions
    deadline_ms: int
    bank_ms: int
    strikes: int
    cursor: int
    def __init__(self, decision_id: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., legal: _Optional[_Union[LegalActions, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., strikes: _Optional[int] = ..., cursor: _Optional[int] = ...) -> None: ...

class LegalActions(_message.Message):
    __slots__ = ("phase", "seat", "can_pass", "bids", "card_options", "options_disjoint")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CAN_PASS_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    CARD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_DISJOINT_FIELD_NUMBER: _ClassVar[int]
    phase: Phase
    seat: int
    can_pass: bool
    bids: _containers.RepeatedCompositeFieldContainer[Bid]
    card_options: _containers.RepeatedCompositeFieldContainer[CardOption]
    options_disjoint: bool
    def __init__(self, phase: _Optional[_Union[Phase, str]] = ..., seat: _Optional[int] = ..., can_pass: _Optional[bool] = ..., bids: _Optional[_Iterable[_Union[Bid, _Mapping]]] = ..., card_options: _Optional[_Iterable[_Union[CardOption, _Mapping]]] = ..., options_disjoint: _Optional[bool] = ...) -> None: ...

class CardOption(_message.Message):
    __slots__ = ("forced", "pool", "k_min", "k_max")
    FORCED_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    K_MIN_FIELD_NUMBER: _ClassVar[int]
    K_MAX_FIELD_NUMBER: _ClassVar[int]
    forced: _containers.RepeatedScalarFieldContainer[Card]
    pool: _containers.RepeatedScalarFieldContainer[Card]
    k_min: int
    k_max: int
    def __init__(self, forced: _Optional[_Iterable[_Union[Card, str]]] = ..., pool: _Optional[_Iterable[_Union[Card, str]]] = ..., k_min: _Optional[int] = ..., k_max: _Optional[int] = ...) -> None: ...

class Refused(_message.Message):
    __slots__ = ("decision_id", "code", "reason")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    code: RefusalCode
    reason: str
    def __init__(self, decision_id: _Optional[int] = ..., code: _Optional[_Union[RefusalCode, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class Strike(_message.Message):
    __slots__ = ("decision_id", "played", "strikes", "max_strikes")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    played: Action
    strikes: int
    max_strikes: int
    def __init__(self, decision_id: _Optional[int] = ..., played: _Optional[_Union[Action, _Mapping]] = ..., strikes: _Optional[int] = ..., max_strikes: _Optional[int] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("events", "ending", "reason", "winner", "hands", "progress", "forfeited_by", "reward")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ENDING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_BY_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    ending: Ending
    reason: str
    winner: int
    hands: int
    progress: _containers.RepeatedScalarFieldContainer[int]
    forfeited_by: int
    reward: int
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., ending: _Optional[_Union[Ending, str]] = ..., reason: _Optional[str] = ..., winner: _Optional[int] = ..., hands: _Optional[int] = ..., progress: _Optional[_Iterable[int]] = ..., forfeited_by: _Optional[int] = ..., reward: _Optional[int] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("table", "token")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    table: str
    token: str
    def __init__(self, table: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ("event", "match_over", "attached")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    ATTACHED_FIELD_NUMBER: _ClassVar[int]
    event: Event
    match_over: MatchOver
    attached: Attached
    def __init__(self, event: _Optional[_Union[Event, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ..., attached: _Optional[_Union[Attached, _Mapping]] = ...) -> None: ...

class Attached(_message.Message):
    __slots__ = ("held_back", "bots")
    HELD_BACK_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    held_back: bool
    bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, held_back: _Optional[bool] = ..., bots: _Optional[_Iterable[str]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "hand", "audience", "dealt", "declared", "fried", "passed", "dealer_fixed", "kitty_taken", "took_kitty", "buried_cards", "buried", "redealt", "kitty_turned", "bids_revealed", "trump_fixed", "played", "trick_won", "hand_over", "hand_begun")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    AUDIENCE_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    FRIED_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIXED_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    TOOK_KITTY_FIELD_NUMBER: _ClassVar[int]
    BURIED_CARDS_FIELD_NUMBER: _ClassVar[int]
    BURIED_FIELD_NUMBER: _ClassVar[int]
    REDEALT_FIELD_NUMBER: _ClassVar[int]
    KITTY_TURNED_FIELD_NUMBER: _ClassVar[int]
    BIDS_REVEALED_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIXED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_WON_FIELD_NUMBER: _ClassVar[int]
    HAND_OVER_FIELD_NUMBER: _ClassVar[int]
    HAND_BEGUN_FIELD_NUMBER: _ClassVar[int]
    seq: int
    hand: int
    audience: int
    dealt: Dealt
    declared: Declared
    fried: Fried
    passed: Passed
    dealer_fixed: DealerFixed
    kitty_taken: KittyTaken
    took_kitty: TookKitty
    buried_cards: BuriedCards
    buried: Buried
    redealt: Redealt
    kitty_turned: KittyTurned
    bids_revealed: BidsRevealed
    trump_fixed: TrumpFixed
    played: Played
    trick_won: TrickWon
    hand_over: HandOver
    hand_begun: HandBegun
    def __init__(self, seq: _Optional[int] = ..., hand: _Optional[int] = ..., audience: _Optional[int] = ..., dealt: _Optional[_Union[Dealt, _Mapping]] = ..., declared: _Optional[_Union[Declared, _Mapping]] = ..., fried: _Optional[_Union[Fried, _Mapping]] = ..., passed: _Optional[_Union[Passed, _Mapping]] = ..., dealer_fixed: _Optional[_Union[DealerFixed, _Mapping]] = ..., kitty_taken: _Optional[_Union[KittyTaken, _Mapping]] = ..., took_kitty: _Optional[_Union[TookKitty, _Mapping]] = ..., buried_cards: _Optional[_Union[BuriedCards, _Mapping]] = ..., buried: _Optional[_Union[Buried, _Mapping]] = ..., redealt: _Optional[_Union[Redealt, _Mapping]] = ..., kitty_turned: _Optional[_Union[KittyTurned, _Mapping]] = ..., bids_revealed: _Optional[_Union[BidsRevealed, _Mapping]] = ..., trump_fixed: _Optional[_Union[TrumpFixed, _Mapping]] = ..., played: _Optional[_Union[Played, _Mapping]] = ..., trick_won: _Optional[_Union[TrickWon, _Mapping]] = ..., hand_over: _Optional[_Union[HandOver, _Mapping]] = ..., hand_begun: _Optional[_Union[HandBegun, _Mapping]] = ...) -> None: ...

class HandBegun(_message.Message):
    __slots__ = ("level", "dealer", "progress")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    level: Rank
    dealer: int
    progress: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, level: _Optional[_Union[Rank, str]] = ..., dealer: _Optional[int] = ..., progress: _Optional[_Iterable[int]] = ...) -> None: ...

class Dealt(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class Declared(_message.Message):
    __slots__ = ("seat", "bid")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: Bid
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[_Union[Bid, _Mapping]] = ...) -> None: ...

class Fried(_message.Message):
    __slots__ = ("seat", "bid")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: Bid
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[_Union[Bid, _Mapping]] = ...) -> None: ...

class Passed(_message.Message):
    __slots__ = ("seat", "stage")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    stage: Phase
    def __init__(self, seat: _Optional[int] = ..., stage: _Optional[_Union[Phase, str]] = ...) -> None: ...

class DealerFixed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class KittyTaken(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class TookKitty(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class BuriedCards(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ...) -> None: ...

class Buried(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class Redealt(_message.Message):
    __slots__ = ("redeals",)
    REDEALS_FIELD_NUMBER: _ClassVar[int]
    redeals: int
    def __init__(self, redeals: _Optional[int] = ...) -> None: ...

class KittyTurned(_message.Message):
    __slots__ = ("cards", "suit")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[Card]
    suit: Suit
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, str]]] = ..., suit: _Optional[_Union[Suit, str]] = ...) -> None: ...

class BidsRevealed(_message.Message):
    __slots__ = ("bids",)
    BIDS_FIELD_NUMBER: _ClassVar[int]
    bids: _containers.RepeatedCompositeFieldContainer[BidRecord]
    def __init__(self, bids: _Optional[_Iterable[_Union[BidRecord, _Mapping]]] = ...) -> None: ...

class BidRecord(_message.Message):
    __slots__ = ("seat", "bid", "stage", "stood")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    STOOD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: Bid
    stage: Phase
    stood: bool
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[_Union[Bid, _Mapping]] = ..., stage: _Optional[_Union[Phase, str]] = ..., stood: _Optional[bool] = ...) -> None: ...

class TrumpFixed(_message.Message):
    __slots__ = ("level", "suit", "dealer")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    level: Rank
    suit: Suit
    dealer: int
    def __init__(self, level: _Optional[_Union[Rank, str]] = ..., suit: _Optional[_Union[Suit, str]] = ..., dealer: _Optional[int] = ...) -> None: ...

class Played(_message.Message):
    __slots__ = ("seat", "cards", "attempted", "penalty")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[Card]
    attempted: _containers.RepeatedScalarFieldContainer[Card]
    penalty: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ..., attempted: _Optional[_Iterable[_Union[Card, str]]] = ..., penalty: _Optional[int] = ...) -> None: ...

class TrickWon(_message.Message):
    __slots__ = ("seat", "points")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class HandOver(_message.Message):
    __slots__ = ("total", "kitty", "dealt", "progress", "next_dealer", "note", "result")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    NEXT_DEALER_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    total: int
    kitty: _containers.RepeatedScalarFieldContainer[Card]
    dealt: _containers.RepeatedCompositeFieldContainer[Cards]
    progress: _containers.RepeatedScalarFieldContainer[int]
    next_dealer: int
    note: str
    result: HandResult
    def __init__(self, total: _Optional[int] = ..., kitty: _Optional[_Iterable[_Union[Card, str]]] = ..., dealt: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., progress: _Optional[_Iterable[int]] = ..., next_dealer: _Optional[int] = ..., note: _Optional[str] = ..., result: _Optional[_Union[HandResult, _Mapping]] = ...) -> None: ...

class Bid(_message.Message):
    __slots__ = ("kind", "cards", "suit")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    kind: BidKind
    cards: _containers.RepeatedScalarFieldContainer[Card]
    suit: Suit
    def __init__(self, kind: _Optional[_Union[BidKind, str]] = ..., cards: _Optional[_Iterable[_Union[Card, str]]] = ..., suit: _Optional[_Union[Suit, str]] = ...) -> None: ...
