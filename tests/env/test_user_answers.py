"""How the offline user answers (issue 32): a question finds the fact that says what it asks for,
whatever else the sentence holds; a fact asked for again is said again; two questions get two
answers or the choice said; a retelling is checked against what the fact says, not against any
number in it. Phrasings written for these tests, not taken from the probes."""

from __future__ import annotations

import copy

import pytest

from empa_env.cases.schema import Fact
from empa_env.env import EMPAEnv
from empa_env.offline.user.facts import best_facts
from empa_env.offline.user.mistakes import find_mistake
from empa_env.offline.user.question import read_reply
from empa_env.offline.user.speech import lines
from empa_env.reading.tokens import tokens_of
from empa_env.reading.world import amounts_in


@pytest.fixture(scope="module")
def env():
    return EMPAEnv("empa30-v1", judger="lexicon")


def started(env, case):
    env.reset(seed=5, options={"case": case})
    return env


def answer(env, reply):
    trial = copy.deepcopy(env)
    obs, *_ = trial.step(reply)
    return obs, trial


def test_a_leading_clause_does_not_say_what_is_asked():
    """ "When ..., do you remember what he told you?" asks what was said, not when (the clause
    before the comma sets the scene; its words still say what the question is about)."""
    q = read_reply("When your father handed it over, do you remember what he told you?").questions
    assert [x.kind for x in q] == ["said"], q
    q = read_reply("If you ever get a free evening, what do you like to cook?").questions
    assert q[0].kind == "what" and "evening" in q[0].words, q


def test_how_old_someone_else_is_not_their_own_age():
    from empa_env.offline.user.facts import about_someone_else

    ask = read_reply("How old was the kid who beat you?").questions[0]
    own = read_reply("How old are you, if you don't mind?").questions[0]
    assert about_someone_else(ask) and not about_someone_else(own)


def test_a_unit_of_time_in_a_question_names_no_fact():
    """ "over the years" asks nothing about a line that happens to say "years"."""
    facts = [
        Fact(kind="duration", about=("church", "served"), answer="I served that church 34 years."),
        Fact(kind="event", about=("burials", "taken"), answer="I have taken hundreds of burials."),
    ]
    q = read_reply("How many burials would you say you have taken over the years?").questions[0]
    assert best_facts(q, facts)[0][1] == 1, best_facts(q, facts)


def test_a_relation_finds_the_line_that_names_that_person():
    """ "your daughter" and a line that names her: the user's world says who she is."""
    world = ("Marisol is my daughter.", "Marisol asked me whether she has it too.",
             "The clinic called twice last week.")  # fmt: skip
    facts = [
        Fact(kind="event", about=("clinic", "called"), answer=world[2]),
        Fact(kind="said", about=("marisol", "asked"), answer=world[1]),
    ]
    q = read_reply("Has your daughter said anything to you about it?", "en", world).questions[0]
    assert ("daughter", "marisol") in q.people, q.people
    assert best_facts(q, facts)[0][1] == 1, best_facts(q, facts)


def test_one_that_stands_for_someone_is_no_count():
    assert amounts_in(tokens_of("She was the one who drove me home.")) == []
    assert [a.value for a in amounts_in(tokens_of("I have one brother."))] == [1.0]


def test_a_name_said_with_its_possessive_is_in_the_users_world():
    """ "Dona Estela's voice" names Estela: "Estala" is set right with her name."""
    fact = Fact(kind="event", about=("voice", "lost"), answer="I lost my place behind Dona "
                "Estela's voice.")  # fmt: skip
    reading = read_reply("What did Dona Estala say after the show?", "en", (fact.answer,))
    assert "estela" in reading.shared.world.names, reading.shared.world.names
    mistake = find_mistake(reading, (fact,))
    assert mistake is not None and mistake.truth == "Estela", mistake


def test_an_ordinal_or_a_clock_time_is_no_wrong_count(env):
    """The user told "at 11 p.m., after rewriting the speech for the fourth time": "four times"
    is right, and 11 is a time of day, no count to set it right with."""
    started(env, "empa30-019")
    obs, _ = answer(env, "You've rewritten that speech four times already tonight.")
    assert "not four" not in obs.lower() and "11" not in obs, obs


def test_a_span_is_set_right_only_with_a_span_of_its_order(env):
    """Months in the job are not set right with the hour the bus takes."""
    started(env, "empa30-004")
    obs, _ = answer(env, "So you're two months into the job now.")
    assert "hour" not in obs.lower(), obs


def test_asked_again_for_a_day_they_say_it_again(env):
    """A "when" question about what they already told is answered again as a reminder (not taken
    as an invitation to tell something else)."""
    started(env, "empa30-004")
    first, trial = answer(env, "Which day does your landlady come for the inspection?")
    assert "saturday" in first.lower(), first
    again, _ = answer(trial, "Sorry, remind me which day the landlady comes round?")
    assert "saturday" in again.lower(), again


def test_two_questions_get_two_answers_or_the_choice_said(env):
    """The second of two questions is answered, or the user says they answer one for now; it is
    never passed over in silence."""
    started(env, "empa30-026")
    obs, _ = answer(env, "How many years were you at that school, and when is your last day?")
    choices = [line.lower() for line in lines()["one_at_a_time"]]
    assert "twenty-seven" in obs.lower(), obs
    assert "friday" in obs.lower() or any(c in obs.lower() for c in choices), obs


def test_a_name_they_never_said_is_set_right_with_the_one_the_fact_gives(env):
    """A person or a place the user never named, in a sentence about a fact of theirs that names
    another of the same kind, is set right with it; a name near nothing of theirs is left."""
    started(env, "empa30-007")
    obs, _ = answer(env, "It's kind of Jorrit to carry the washing up the stairs for you.")
    assert "joost" in obs.lower(), obs
    started(env, "empa30-019")
    obs, _ = answer(env, "Finding a half-brother over in Adelaide must have been a shock.")
    assert "perth" in obs.lower(), obs
    obs, _ = answer(env, "Have you ever thought of ringing Lifeline when it gets bad at night?")
    assert "lifeline" not in obs.lower(), obs


def test_a_name_in_an_object_place_is_me_in_their_own_words():
    from empa_env.offline.user.prose import first_person

    line = first_person(
        "The officer asked Zara what is best for her brother.", "Zara Ali", "female"
    )
    assert line == "The officer asked me what is best for my brother.", line


@pytest.mark.parametrize(
    "reply",
    [
        "Nearly half a year shut away, and you reached out anyway.",  # rough
        "Your dad joined up at nineteen, and that hurt never healed.",  # an age, not theirs
        "You two have known each other since you were small.",  # people, not a count
        "Giving up something that mattered a month ago takes a lot.",  # their "last month"
    ],
)
def test_a_number_said_roughly_or_of_someone_else_is_no_mistake(reply):
    from empa_env.offline.user.hearing import hear

    world = ("Last month I gave back my driving licence.", "Five months since I quit my job.",
             "My dad served in the army all his life.", "We met at eleven and were friends for years.",
             "I'm 20.")  # fmt: skip
    facts = tuple(Fact(kind="event", about=("licence", "job", "dad", "friends"), answer=w)
                  for w in world[:-1]) + (Fact(kind="event", about=("age",), answer=world[-1]),)  # fmt: skip
    heard = hear(read_reply(reply, "en", world), facts, (), about_self=frozenset({world[-1]}))
    assert heard.mistake is None, (reply, heard.mistake)


@pytest.mark.slow
def test_hand_written_attentive_replies_are_seldom_corrected(env, monkeypatch):
    """The 249 attentive replies written blind by reading each conversation (they mean no
    mistake): v10's user 'set right' 35 of them ("Not sixteen. I'm 44." for a prize won at
    sixteen, "A decade? No. Fourteen years." for "well over a decade"), v11's 5 (2%), v12's 4."""
    import json
    from pathlib import Path

    import empa_env.offline.actor as actor

    heard = []
    real = actor.hear
    monkeypatch.setattr(actor, "hear", lambda *a, **k: heard.append(real(*a, **k)) or heard[-1])
    path = Path(__file__).parents[1] / "judge" / "data" / "blind" / "attentive.jsonl"
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    from empa_env.testing import policies as sp

    corrected = 0
    for r in rows:
        env.reset(seed=0, options={"case": r["case"]})
        for _ in range(r["turn"]):
            *_, term, trunc, _ = env.step(sp.attuned(env.messages))
            if term or trunc:
                break
        heard.clear()
        answer(env, r["reply"])
        corrected += heard[-1].mistake is not None
    assert corrected <= 0.03 * len(rows), corrected


def _mistake(reply, world, facts=None):
    facts = facts or tuple(Fact(kind="event", about=("story",), answer=w) for w in world)
    return find_mistake(read_reply(reply, "en", world), facts)


def test_a_wrong_tie_is_set_right_with_the_tie_of_that_clause():
    """A line that names two people: the tie of the clause the reply retold ("my wife"), not the
    first in the line ("my son")."""
    world = ("Oskar is my son.", "Lotte is my wife.",
             "My son Oskar fixes the van, and my wife Lotte counts my pills every morning.")  # fmt: skip
    found = _mistake("It must wear on you that your sister counts your pills every morning.", world)
    assert found is not None and found.kind == "relation" and found.truth == "my wife", found


def test_a_tie_given_to_a_named_person_is_set_right_with_theirs():
    """ "your cousin Kit" for their brother Kit (a name that is also an English word)."""
    world = ("Kit is my brother.", "Kit laughed and said I could buy another boat.")
    found = _mistake("Your cousin Kit laughing it off like that must have stung.", world)
    assert found is not None and found.truth == "my brother", found


def test_a_name_first_in_a_sentence_is_heard_and_an_interjection_is_not():
    world = ("Hanne is my daughter.", "Hanne asked who keeps the cottage after I'm gone.")
    found = _mistake("Birgit asking who keeps the cottage must have hurt.", world)
    assert found is not None and found.kind == "name" and found.truth == "Hanne", found
    assert _mistake("Blimey, asking who keeps the cottage must have hurt.", world) is None


def test_a_month_is_no_slip_for_a_name_and_their_spans_are_theirs():
    world = ("Marie runs the stall with me.", "The stall must be sold by the first of March.",
             "Nine years married, three years on my own, two years learning to paint.")  # fmt: skip
    assert _mistake("And the stall has to go by the first of March.", world) is None
    found = _mistake("Three years on your own and two years learning to paint, after nine "
                     "years married.", world)  # fmt: skip
    assert found is None, found


def test_a_question_for_a_name_finds_the_line_that_gives_one():
    facts = [
        Fact(
            kind="event",
            about=("cat", "coat"),
            answer="The cat sleeps on my coat and the cat hates the vet, the cat really does.",
        ),
        Fact(
            kind="event", about=("cat", "shelter"), answer="Our cat Biscuit came from the shelter."
        ),
    ]
    for ask in ("What's the cat called?", "What is your cat's name, if I may ask?"):
        q = read_reply(ask, "en", tuple(f.answer for f in facts)).questions[0]
        assert q.kind == "who" and best_facts(q, facts)[0][1] == 1, (ask, best_facts(q, facts))


def test_a_place_in_an_outright_question_is_asked_not_set_right():
    world = ("I grew up above the bakery in Porto.",)
    assert _mistake("Did you grow up in Portugal, or somewhere else?", world) is None


def test_a_thing_put_in_the_place_of_theirs_is_set_right():
    """ "a textile factory" where they worked at a lamp factory; "teaching maths" where they
    taught music. Another word for the same thing ("basement apartment" for their "basement
    flat") is no slip."""
    world = ("In 1974 I went to work at a lamp factory in Spandau.",
             "For thirty years I was teaching music at the school on Calle Lavalle.",
             "I live in a basement flat now.")  # fmt: skip
    found = _mistake("Those shifts at a textile factory were hard on you.", world)
    assert found is not None and found.kind == "thing" and found.truth == "lamp factory", found
    found = _mistake("All those years teaching maths at that school.", world)
    assert found is not None and found.truth == "teaching music", found
    assert _mistake("Alone in a basement apartment these days, that's hard.", world) is None


def test_where_someone_grew_up_is_no_contempt():
    ask = read_reply("Did you grow up in Porto, or further south?", "en", ("I was born in Porto.",))
    assert not ask.hostile, ask.contempt
    told = read_reply("You need to grow up.", "en", ("I was born in Porto.",))
    assert told.hostile


def test_how_old_someone_is_finds_the_line_with_their_age():
    facts = [
        Fact(
            kind="event",
            about=("seventeen",),
            answer="At seventeen I started carrying messages for Ayaan and the rest.",
        ),
        Fact(kind="said", about=("ayaan",), answer="Ayaan's nine. He asked me to come too."),
    ]
    q = read_reply("How old is Ayaan, by the way?", "en", tuple(f.answer for f in facts))
    assert best_facts(q.questions[0], facts)[0][1] == 1, best_facts(q.questions[0], facts)


def test_a_question_of_when_is_never_off_their_story():
    from empa_env.offline.user.hearing import off_story

    world = ("The new owner wants everyone out by the end of August.",)
    s = read_reply("Is the date they want everyone gone sometime this summer?", "en", world)
    assert not off_story(s.shared.sentences[0], s.shared.world)


def test_checking_what_was_understood_is_no_apology():
    """ "..., or have I got that wrong?" asks; "I got that wrong, sorry." owns a slip."""
    assert "apology" not in read_reply("Is it the younger class, or have I got that wrong?").acts
    assert "apology" in read_reply("I got that wrong, sorry. It was Tuesday.").acts


def test_a_tie_of_the_other_sex_is_set_right_in_their_own_word():
    """ "your granddaughter" to someone with a grandson (one relation, "grandchild", holds both),
    "your daughter" to a father of a son, "your sisters" to someone with brothers: set right in
    the user's word, as many as the reply said. "Your mum" to a user who says "mother" is theirs."""
    world = ("My grandson Tobias put the tablet on my kitchen table.", "Tobias is my grandson.")
    found = _mistake("How good of your granddaughter to bring you that tablet.", world)
    assert found is not None and found.kind == "relation" and found.truth == "my grandson", found
    world = ("My son Bheki marries in June.", "Bheki is my son.", "My mother raised six children.")
    found = _mistake("Learning about your daughter's engagement like that must sting.", world)
    assert found is not None and found.truth == "my son", found
    assert _mistake("Your mum must have worked every hour there was.", world) is None
    world = ("My little brothers still think Dad hung the moon.", "I have two brothers.")
    found = _mistake("Have your little sisters noticed anything yet?", world)
    assert found is not None and found.truth == "my brothers", found
    # a parent of a son and a daughter ("my kids") may be asked of either
    world = ("My son Bheki marries in June.", "Bheki is my son.", "I raised my kids alone.")
    assert (
        _mistake("Learning about your daughter's engagement like that must sting.", world) is None
    )


def test_a_wrong_name_is_set_right_with_the_name_in_its_place():
    """ "the Lisbon half" where the line says "the Porto half": the name beside the same word,
    though another name comes first in the line; a name of time ("at Easter Sunday") is no
    place."""
    world = ("Moved in with Duarte after college, ran the Porto half marathon at thirty.",)
    found = _mistake("Someone who ran the Lisbon half marathon is no quitter.", world)
    assert found is not None and found.kind == "name" and found.truth == "Porto", found


def test_a_name_of_theirs_in_two_words_is_not_another_name():
    """A place in two words is read as one ("Aires" of "in Buenos Aires" is a place, not a slip
    for a person's name), and a place the persona card gives is theirs: a question that names it
    is neither set right nor denied (v12 said "There's no Buenos in this")."""
    world = ("Married Marta in 1968 and we lived forty years in Almagro.", "Marta was my wife.")
    assert _mistake("Do you still live in Buenos Aires, near the old places?", world) is None
    env = EMPAEnv("empa30-v1", judger="lexicon")
    env.reset(seed=3, options={"case": "empa30-021"})
    for ask in ("Did you grow up in Buenos Aires?", "Have you always lived in Buenos Aires?"):
        obs, _ = answer(env, ask)
        assert "Buenos" not in obs and "You mean" not in obs, (ask, obs)


def test_a_verb_before_a_thing_is_not_a_thing_put_in_its_place():
    """ "You must miss teaching music": "miss" after a modal is a verb, not a thing that stood
    where their "job" did ("a steady job teaching music")."""
    world = ("I took a steady job teaching music at the school.",)
    assert _mistake("You must miss teaching music so much.", world) is None


def test_a_name_question_about_a_tie_finds_the_line_that_names_that_person():
    """ "What's your daughter's name?": the line that names her, not a line with some "girl" in
    it."""
    facts = [
        Fact(
            kind="event",
            about=("pastor",),
            answer="The new pastor keeps asking me to lunch. Kind girl.",
        ),  # fmt: skip
        Fact(
            kind="duration",
            about=("married",),
            answer="Married in 1977 and raised our daughter Signe in the parsonage.",
        ),  # fmt: skip
        Fact(kind="place", about=("signe",), answer="Signe phones every Sunday from Fargo."),
    ]
    world = tuple(f.answer for f in facts)
    q = read_reply("What's your daughter's name, if you don't mind me asking?", "en", world)
    assert q.questions and q.questions[0].people == (("daughter's", "signe"),), q.questions
    assert "i" not in q.questions[0].names
    from empa_env.offline.user.hearing import _gives

    best = [i for _s, i in best_facts(q.questions[0], facts) if _gives(q.questions[0], facts[i])]
    assert best and best[0] in (1, 2), best_facts(q.questions[0], facts)


def test_a_yes_no_question_of_where_someone_lives_asks_where():
    for ask in ("Does your son live anywhere near you?", "Is she living far away now?"):
        q = read_reply(ask).questions
        assert q and q[0].kind == "where", (ask, q)
    assert read_reply("How far is the clinic from your flat?").questions[0].kind == "amount"
    assert read_reply("Do you live alone?").questions[0].kind == "yesno"


def test_someone_s_work_said_as_another_is_set_right_with_theirs():
    """v14: "as a <job>" of a person of theirs, "working at <a place>" of the user, where a fact
    tells that work in other things, is set right with it; their own words for it, a stage of
    life ("as a kid") and a time ("working at night") are not."""
    world = (
        "My husband Teodor works for the council fixing lifts, has done for twenty years.",
        "I grew up above my parents' bakery and I still bake bread on Sundays.",
    )
    found = _mistake("Teodor must be tired after all those years as a postman.", world)
    assert found is not None and found.kind == "thing", found
    assert "council" in found.truth, found
    work = Fact(kind="event", about=("work", "job"), answer="Night nurse on a cardiac ward.")
    facts = (*(Fact(kind="event", about=("story",), answer=w) for w in world), work)
    mine = frozenset({work.answer})
    said = read_reply("All those years working down at the bakery would wear anyone out.", "en",
                      world)  # fmt: skip
    assert find_mistake(said, facts, mine) is None  # their parents' bakery: a word of theirs
    said = read_reply("All those years working over at the post office would wear anyone out.",
                      "en", world)  # fmt: skip
    found = find_mistake(said, facts, mine)
    assert found is not None and "cardiac ward" in found.truth, found
    for fine in (
        "As a kid above a bakery you must have smelled bread every morning.",
        "Working at night on a cardiac ward is its own kind of tired.",
        "Teodor fixing lifts for the council all those years says a lot about him.",
    ):
        assert find_mistake(read_reply(fine, "en", world), facts, mine) is None, fine


def test_a_verb_and_its_thing_with_an_article_between_is_a_phrase_of_theirs():
    """ "Driving taxis" where they "drove a lorry": the verb read with its object across the
    article."""
    world = ("I drove a lorry up and down the coast road for thirty summers.",)
    found = _mistake(
        "Driving taxis up and down that coast road for thirty summers is a life.", world
    )
    assert found is not None and found.kind == "thing" and "lorry" in found.truth, found


def test_a_number_is_set_right_with_what_it_counts():
    """ "a nine-year-old" where the line says "an eleven-year-old" (and "round two" elsewhere in
    it): the number of the same thing, said with it; a year is no truth for an age."""
    world = ("In round two I lost to an eleven-year-old boy, and I was forty.",)
    found = _mistake("Losing to a nine-year-old like that would sting anyone.", world)
    assert found is not None and found.truth == "eleven-year-old", found
    world = ("In 1971 my uncle gave me his accordion.",)
    found = _mistake("Your uncle giving you that accordion when you were only eight says a lot.",
                     world)  # fmt: skip
    assert found is None or "1971" not in found.truth, found


def test_a_wrong_name_with_a_title_is_set_right_with_the_name_of_that_title():
    """ "Uncle Rewi" where the line names "Uncle Hemi" and someone else after him."""
    world = ("Nobody knows yet. Not my cousins, not Uncle Hemi, not even Aroha.",)
    found = _mistake("Uncle Rewi asking you to speak first must weigh on you.", world)
    assert found is not None and found.kind == "name" and found.truth == "Uncle Hemi", found


def test_a_summary_said_back_keeps_the_capital_of_a_name():
    """ "Right, Esbjerg." (v13 said "Right, esbjerg.")."""
    from empa_env.offline.user.hearing import hear

    world = ("We left Esbjerg last spring and I still miss the harbour.",)
    heard = hear(read_reply("So you left Esbjerg last spring.", "en", world), (), ())
    assert heard.summary_right and heard.echo in ("Esbjerg", "spring", "left", "last")
    assert heard.echo != "esbjerg"


def test_a_question_said_as_a_wish_to_know_or_a_name_missed_is_asked():
    """v14: "I'd be interested to know what ..." and "I didn't catch the name of ..." ask; knowing
    a name, or wanting them to know something, does not."""
    asked = read_reply("I'd be interested to know what your van is called.").questions
    assert [q.kind for q in asked] == ["who"], asked
    asked = read_reply("Sorry, I didn't catch the name of your street.").questions
    assert [q.kind for q in asked] == ["who"] and "street" in asked[0].words, asked
    for statement in ("I know the name of that feeling.", "I want you to know that I'm here."):
        assert read_reply(statement).questions == (), statement


def test_an_ing_form_after_an_auxiliary_is_asked_about_as_the_verb():
    """ "How long have you been painting it?" asks about painting (the verb's lemma), not a
    painting."""
    asked = read_reply("How long have you been painting it together?").questions[0]
    assert "paint" in asked.words and "painting" not in asked.words, asked


def test_a_month_or_a_day_they_never_said_is_set_right_with_theirs():
    """v14: "by September" where the line near it says "by August"; a day or month they said,
    or one the line itself gives, is no slip."""
    world = ("Dad says the flat has to be empty by August, and the van comes on a Thursday.",)
    found = _mistake("Clearing the whole flat by September is a huge job on top of everything.",
                     world)  # fmt: skip
    assert found is not None and found.kind == "time" and found.truth == "August", found
    assert _mistake("Clearing the whole flat by August is a huge job.", world) is None
    assert _mistake("With the van coming on a Thursday, the flat will be empty by August.",
                    world) is None  # fmt: skip


def test_a_name_first_with_its_clause_is_heard_as_a_name():
    """ "Jeroen, who does the cooking, ..." names someone (v13 took a first word set off by a
    comma for an interjection)."""
    world = ("My partner Joost does all the cooking now, and I lie on the sofa.",)
    found = _mistake("Jeroen, who does the cooking now, must see how tired you are.", world)
    assert found is not None and found.kind == "name" and found.truth == "Joost", found


def test_going_into_a_subject_or_not_having_to_go_is_no_goodbye():
    """v14: "We don't have to go there unless you want to" offers, it does not leave."""
    assert not read_reply("We don't have to go there unless you want to.").goodbye
    assert not read_reply("You don't have to go through this alone.").goodbye
    assert read_reply("I have to go now, take care.").goodbye
