"""Closed word lists the dependency rules use to choose a wh-word (who / what / when / where / why / how ...).

Kept apart from the rules so they can grow without touching the logic. Small, hand-written, English only.
"""
from __future__ import annotations

from typing import Final

PERSON_PRONOUNS: Final = frozenset(
    "i me you he him she her we us they them who whom someone somebody anyone anybody everyone everybody "
    "noone nobody himself herself themselves myself yourself ourselves one others".split()
)
PERSON_NOUNS: Final = frozenset(
    """man men woman women people person persons child children boy boys girl girls family families police
    officer officers official officials president minister ministers leader leaders member members student students
    teacher teachers doctor doctors patient patients soldier soldiers troops victim victims suspect suspects resident
    residents citizen citizens politician politicians journalist journalists reporter reporters spokesman spokeswoman
    spokesperson author authors actor actress actors actresses artist artists scientist scientists researcher
    researchers expert experts king queen prince princess father mother son daughter brother sister wife husband
    parents parent friend friends fan fans player players coach team crew staff worker workers employee employees
    government group party committee council court judge judges lawyer lawyers attorney prosecutors
    prosecutor protesters protester demonstrators militants rebels gunmen gunman attacker attackers candidate
    candidates voter voters driver drivers passenger passengers pilot pilots governor mayor senator senators
    chairman ceo director directors manager managers owner owners founder winner winners champion opponent opponents
    authorities administration organization organisation union army navy military agency ministry department""".split()
)
TIME_NOUNS: Final = frozenset(
    """time times year years month months week weeks day days hour hours minute minutes second seconds morning
    mornings afternoon evening evenings night nights weekend weekends century centuries decade decades season
    seasons period era date moment today yesterday tomorrow tonight monday tuesday wednesday thursday friday
    saturday sunday january february march april may june july august september october november december
    spring summer autumn fall winter age ages beginning end start time midnight noon dawn past future
    1990s 1980s 1970s 1960s 2000s""".split()
)
DURATION_UNITS: Final = frozenset(
    "year years month months week weeks day days hour hours minute minutes decade decades century centuries".split()
)
PLACE_NOUNS: Final = frozenset(
    """city cities country countries town towns village villages state states region regions area areas home house
    houses hospital hospitals office offices street streets road roads building buildings school schools
    university prison jail court courts station airport church capital province district island islands coast
    border world continent park field stadium hotel restaurant market shop store room camp base headquarters
    square bridge river sea ocean lake mountain mountains site scene neighborhood neighbourhood territory
    nation nations county zone facility port harbour harbor embassy parliament""".split()
)
LOCATIVE_PREPS: Final = frozenset(
    "in at near inside outside across throughout around within into onto from to toward towards behind "
    "beneath under over above along beside between among amongst off past through".split()
)
TEMPORAL_PREPS: Final = frozenset("before after during since until till throughout".split())
CAUSAL_PREPS: Final = frozenset("because despite".split())
TIME_ADVERBS: Final = frozenset(
    """now then today yesterday tomorrow tonight recently later earlier soon currently previously formerly
    presently immediately initially subsequently lately eventually finally afterwards afterward ago once
    again already still yet meanwhile originally shortly thereafter annually daily weekly monthly nightly
    briefly temporarily permanently""".split()
)
FREQUENCY_ADVERBS: Final = frozenset("often sometimes always never usually frequently rarely occasionally repeatedly".split())
PLACE_ADVERBS: Final = frozenset(
    "here there abroad home away nearby overseas elsewhere everywhere somewhere downtown upstairs downstairs "
    "inside outside locally nationally internationally worldwide offshore underground".split()
)
DEGREE_ADVERBS: Final = frozenset(
    """also just only even so too very not n't as more most less least much still quite rather almost nearly
    about around approximately roughly over under really probably perhaps maybe possibly likely certainly
    then thus therefore however instead either neither both well how when where why what""".split()
)
REASON_MARKS: Final = frozenset("because since as cause so".split())
TIME_MARKS: Final = frozenset("when while after before until till once whenever as".split())
CONDITION_MARKS: Final = frozenset("if unless whether".split())
SAY_VERBS: Final = frozenset(
    "say tell report add claim state announce explain note write ask reply insist confirm suggest argue warn".split()
)
UNACCUSATIVE: Final = frozenset(
    """die arrive fall rise grow increase decrease decline collapse happen occur disappear emerge exist resign retire
    depart escape begin start end finish continue change improve succeed fail survive live return go come
    appear remain stay move travel run walk sleep laugh cry work""".split()
)
MODAL_MAP: Final = {
    "will": "will", "'ll": "will", "wo": "will", "shall": "will",
    "would": "would", "'d": "would",
    "can": "can", "ca": "can", "could": "might", "may": "might", "might": "might",
    "should": "should", "must": "should", "ought": "should", "need": "should",
}
NEGATED_AUX: Final = {
    "did": "didn't", "does": "doesn't", "is": "isn't", "was": "wasn't", "has": "hasn't", "had": "hadn't",
    "can": "can't", "will": "won't", "would": "wouldn't", "should": "shouldn't",
}
OBJECT_CONTROL: Final = frozenset(
    """persuade ask tell force allow help want expect urge order encourage enable cause require invite permit
    advise get make let lead convince compel oblige teach train instruct remind warn beg push prompt inspire
    authorize authorise empower challenge need prefer like hate""".split()
)
INFINITIVE_TAKERS: Final = OBJECT_CONTROL | frozenset(
    """try plan decide agree refuse hope expect begin start continue attempt seek fail manage promise threaten
    intend aim vow pledge prepare have be go use tend appear seem choose offer ask tell wish wait learn remember
    forget hesitate struggle afford arrange bother claim dare deserve volunteer opt neglect cease resolve vote
    move propose demand proceed return come stop""".split()
)
SPATIAL_PREPS: Final = frozenset("in at into onto near inside outside across through around within toward towards".split())
# nouns the lexicon links to a verb but that name people or groups, never an event (people -> to people)
NON_EVENT_NOUNS: Final = frozenset("people men man women woman".split())
# adjectives that pick out or rank the event (first, same, major) rather than say how it happened
REFERENCE_ADJECTIVES: Final = frozenset(
    """first second third fourth fifth last next previous new old different same single own such only more most
    further early earlier late later general major great important best biggest higher full whole entire various
    certain particular specific main real total initial final""".split()
)
# verbs that lend their arguments to an event noun ("made a decision", "damage caused by the storm")
LIGHT_VERBS: Final = frozenset("make cause carry conduct take give launch do undertake perform hold stage issue".split())
