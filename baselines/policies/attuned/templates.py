"""The attuned planner's sentence templates, by move. Slots: ``{event}`` (a clause the user told,
said back), ``{statement}`` (their feeling sentence said back), ``{feeling}`` (a feeling word),
``{denied}`` (a feeling they said they do not have), ``{phrase}`` (a whole noun phrase),
``{verdict}`` (what they heard the last reply say about them). Every template carries a literal
of at least two words, by which the planner sees that an earlier reply used it."""

from __future__ import annotations

#: The user wants to stop: let them, thank them, leave the door open (no question).
CLOSE = (
    "Of course, we can stop here.",
    "That's fine; we can leave it there for today.",
    "Let's stop there, then.",
)
THANKS = (
    "Thank you for telling me about {phrase}.",
    "Thank you for trusting me with all of this.",
    "I'm glad you told me about {phrase}.",
)
DOOR_OPEN = (
    "I'm here if you want to come back to it.",
    "We can pick it up again whenever you like.",
)
#: The user pushes back: own the miss plainly.
REPAIR = (
    "You're right, I put that badly.",
    "Fair enough; that missed the mark.",
    "I'm sorry, that came out wrong.",
    "That's fair; I got ahead of you there.",
    "Point taken, and I'll drop that line.",
)
NOT_SAYING = (
    "No, I'm not saying {verdict}.",
    "That isn't what I meant; I don't think {verdict}.",
)
WHAT_DID_I_MISS = (
    "What did I miss?",
    "Tell me what I got wrong.",
    "What would you want me to understand instead?",
)
#: The user does not want to go into something: respect it.
RESPECT = (
    "We can leave that, then.",
    "That's all right; we don't have to go there.",
    "Okay, we'll set that aside.",
)
RATHER = (
    "What would you rather talk about?",
    "Where would you like to go from here?",
)
#: A feeling the user named, acknowledged with their own sentence said back.
FEELING_STATEMENT = (
    "It makes sense that {statement}.",
    "I can hear that {statement}.",
    "{statement}, and that is understandable.",
    "It sounds like {statement}.",
    "So {statement}, and that makes sense to me.",
)
FEELING_WORD = (
    "Feeling {feeling} like that is hard.",
    "It makes sense to feel {feeling} with all of this.",
    "That sounds like a lot to carry, feeling so {feeling}.",
)
FEELING_CORRECTED = (
    "Not {denied}, then, but {feeling}.",
    "So it's not {denied}; it's {feeling}.",
)
#: Something the user told, said back.
EVENT = (
    "So {event}.",
    "I'm taking in that {event}.",
    "I hear that {event}.",
    "You're telling me {event}.",
    "I'm struck that {event}.",
    "Let me make sure I follow: {event}.",
    "Thank you for telling me that {event}.",
    "If I follow, {event}.",
)
#: They ask whether wanting or feeling this is wrong (``Is that wrong?``).
NOT_WRONG = (
    "No, I don't think it's {judged} at all.",
    "I don't see anything {judged} in that.",
)
SOUNDS_HUMAN = (
    "It sounds very human to me.",
    "That sounds like a very human thing to feel.",
)
#: The user judges themselves (``I'm only an old man``).
SELF_JUDGEMENT = (
    "You say {statement}, but that isn't all I'm hearing.",
    "You call it that, {statement}, and I'm hearing a lot more than that.",
)
#: An open question about what they just told (past events / present states).
ASK_PAST = (
    "What was that like for you?",
    "How did that feel at the time?",
    "What do you make of it, looking back?",
    "What stays with you most from that?",
    "What went through your mind then?",
    "How did that shape you?",
)
ASK_PRESENT = (
    "How is that for you, day to day?",
    "What is that like for you right now?",
    "What do you make of that?",
    "How does that sit with you?",
    "What do you notice in yourself when you think about it?",
    "How long has it been like that?",
)
ASK_PHRASE = (
    "What does {phrase} mean to you?",
    "Tell me more about {phrase}.",
    "What comes up first when you think of {phrase}?",
    "What is it about {phrase} that stays with you?",
)
ASK_FEELING = (
    "When does the {feeling} feeling come most strongly?",
    "What is it like, carrying that {feeling} feeling?",
    "What do you think is underneath feeling {feeling}?",
)
#: What something means to them (reflecting meaning rather than facts).
MEANING = (
    "It sounds like {phrase} holds more for you than it might seem from outside.",
    "I get the sense that {phrase} is tied up with who you are.",
    "It sounds like {phrase} stands for something bigger than itself.",
    "I wonder whether {phrase} carries a lot of weight for you.",
)
#: The user agrees that the last reply fit.
GLAD = (
    "I'm glad that fits.",
    "Good, it sounds like I followed you.",
    "That seems to ring true for you.",
)
#: The user is unsure or says little: no pressure, and come back to their own words.
NO_RUSH = (
    "Take your time.",
    "There's no rush.",
    "It's fine not to be sure yet.",
    "We can go slowly.",
    "Not knowing yet is all right.",
)
LISTENING = (
    "I'm listening.",
    "I'm with you.",
    "I hear you.",
    "Mm, I'm here.",
    "I'm following you.",
)
#: The user comes back to something they said before.
REPEATED = (
    "You've returned to {phrase} more than once; it seems to matter a great deal.",
    "You keep returning to {phrase}, I notice.",
    "You've told me before that {event}, and I think it weighs on you.",
    "I remember you saying that {event}.",
)
REVISIT = (
    "Earlier you mentioned {phrase}; what's it like to think about that now?",
    "I keep thinking about {phrase}. What does it mean to you?",
    "Can we go back to {phrase} for a moment? How is that for you?",
)
OPEN = (
    "What's on your mind right now?",
    "What feels most important to say?",
    "What is the part I most need to hear?",
    "Where does your mind go when it's quiet?",
    "What is weighing on you most today?",
)
#: Later: agency, a next step they could choose.
AGENCY = (
    "It's your decision what happens next; what feels right to you?",
    "What would you want for yourself from here?",
    "Who could you share some of this with?",
    "What is one small thing that might make this week a little easier?",
    "If you could change one thing about this, what would it be?",
    "What do you need most right now?",
)
#: They ask what to do.
YOUR_CALL = (
    "I can't choose for you, but I can help you think it through.",
    "That's yours to decide, and you don't have to decide it alone.",
)
WHAT_MATTERS = (
    "What matters most to you in this?",
    "What would you choose if nobody else's opinion counted?",
)

__all__ = [
    "AGENCY", "ASK_FEELING", "ASK_PAST", "ASK_PHRASE", "ASK_PRESENT", "CLOSE",
    "DOOR_OPEN", "EVENT", "FEELING_CORRECTED", "FEELING_STATEMENT", "FEELING_WORD", "GLAD",
    "LISTENING", "MEANING", "NOT_SAYING", "NOT_WRONG", "SOUNDS_HUMAN", "NO_RUSH", "OPEN", "RATHER", "REPAIR", "REPEATED", "SELF_JUDGEMENT", "RESPECT", "REVISIT", "THANKS",
    "WHAT_DID_I_MISS", "WHAT_MATTERS", "YOUR_CALL",
]  # fmt: skip
