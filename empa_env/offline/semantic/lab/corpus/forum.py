"""The forum component of the corpus: peer-support posts and replies in an everyday register.

Written for empa-gym in our own words (no text from EPITOME, ESConv, EMPA or any other dataset).
The case-library component (:mod:`.generator`) teaches the MDEP-PR levels on the simulated users'
lines; its replies share a few formal skeletons, so a head can learn the skeletons rather than the
meaning. This component breaks that link: seeker posts of many topics and lengths, and replies in
the *same* casual register at every level, built combinatorially from many paraphrases per move,
in random order, 1-6 sentences, with lowercase, dropped apostrophes and typos.

Moves and the levels they carry (each axis labelled independently, the strongest move wins):

* A (affective): ``warm`` (sympathy, concern, hugs: A1) and ``warm_strong`` (explicit compassion
  that names the feeling with the person: A2).
* C (cognitive): ``reflect`` (what they feel and why, in their situation: C1), ``shared`` (a
  similar experience of one's own that shows understanding: C1) and ``interpret`` (what the
  situation means underneath: C2).
* P (proactive): ``explore`` (an open question that hands the initiative back: what happened, how
  long, what is behind it: P1), ``affirm`` (affirming what they did: P1), ``empower`` (their
  choice, their strengths: P2).
* level 0 in the same register: advice, closed suggestion questions, information, opinions, jokes,
  unrelated anecdotes, generic statements, links and meta comments, rhetorical questions.
* negatives: dismissal, blame, contempt, templated cheerleading, fatalism.

Off-topic pairs (a reply written for a post on another topic, carrying that topic's content) get
no progress and C.Neg -1.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from empa_env.offline.semantic.lab.corpus.record import LEVEL_KEYS, Record

#: Families of this component (the ``family`` field).
FORUM_FAMILIES: dict[str, str] = {
    "forum": "peer-support forum replies in an everyday register, every level",
    "forum_off_topic": "a forum reply written for a post on another topic, paired with this post",
}

# --------------------------------------------------------------------------------------------
# Topics: (situation lines, feelings, "you" phrases, own similar experience, specific questions,
# topic advice and opinions (level 0))
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    name: str
    lines: tuple[str, ...]
    feelings: tuple[str, ...]
    you: tuple[str, ...]
    mine: tuple[str, ...]
    questions: tuple[str, ...]
    zero: tuple[str, ...]


TOPICS: tuple[Topic, ...] = (
    Topic(
        "breakup",
        (
            "my girlfriend of four years broke up with me last week",
            "he ended things over text after two years together",
            "we split up and i still have to see her at work every day",
            "she said she just doesn't love me anymore",
            "i keep checking his profile to see if he's with someone new",
            "our apartment still has all her stuff in it",
            "i thought we were going to get married",
        ),
        ("heartbroken", "empty", "lost", "crushed", "lonely", "numb"),
        (
            "the breakup",
            "losing her after four years",
            "him ending it like that",
            "seeing her every day after the split",
            "the relationship ending",
        ),
        (
            "when my ex left me i couldn't eat for about a week",
            "i went through a really messy breakup two years ago",
            "my fiance called off our engagement a month before the wedding",
            "after my last relationship ended i kept rereading old messages",
        ),
        (
            "what do you miss most about her?",
            "how did things end between you two?",
            "how are you sleeping since it ended?",
            "what was the relationship like toward the end?",
        ),
        (
            "delete her number and block her everywhere",
            "get on the apps and start dating again",
            "honestly she sounds toxic, you dodged a bullet",
            "go to the gym, revenge body is real",
            "most relationships from high school dont last anyway",
            "have you tried no contact? it works",
        ),
    ),
    Topic(
        "job",
        (
            "i got laid off yesterday after nine years at the company",
            "i was fired for being late too many times",
            "i've applied to over a hundred jobs and haven't heard back from any",
            "my boss yells at me in front of everyone",
            "i have no idea how i'm going to pay rent next month",
            "everyone else my age seems to have a career and i have nothing",
        ),
        ("worthless", "panicked", "ashamed", "stressed", "hopeless", "scared"),
        (
            "losing your job",
            "getting laid off after nine years",
            "the job hunt",
            "your boss treating you like that",
            "the money stress",
            "all those rejections",
        ),
        (
            "i got let go from my first real job and sat in my car for an hour",
            "i was unemployed for most of last year",
            "i had a manager who picked on me constantly",
            "i sent out something like two hundred applications before anyone called",
        ),
        (
            "how long were you there?",
            "what was the job like for you before all this?",
            "what's been the hardest part of the job search?",
            "how are you managing money right now?",
        ),
        (
            "update your linkedin and reach out to old coworkers",
            "you can file for unemployment online",
            "try temp agencies, they hire fast",
            "the job market is brutal right now for everyone",
            "have you tried tailoring your resume to each job?",
            "your boss is an idiot, report him to hr",
        ),
    ),
    Topic(
        "depression",
        (
            "i haven't left my bed in three days",
            "i don't enjoy anything anymore, not even games i used to love",
            "every morning i wake up and wish i hadn't",
            "i've been on antidepressants for a year and nothing changes",
            "i stopped answering my friends because i have nothing to say",
            "i can't remember the last time i felt happy",
        ),
        ("empty", "exhausted", "numb", "hopeless", "worthless", "tired"),
        (
            "not being able to get out of bed",
            "losing interest in everything",
            "waking up wishing you hadn't",
            "the meds not working",
            "pulling away from your friends",
            "feeling like this for so long",
        ),
        (
            "i spent most of my twenties barely able to get out of bed",
            "i had a stretch where i didn't shower for a week",
            "i stopped replying to everyone for months when i was at my lowest",
            "i went through three different meds before one did anything",
        ),
        (
            "how long have you been feeling like this?",
            "do you remember when it started?",
            "is there anything that still feels okay, even a little?",
            "what's a normal day looking like for you right now?",
        ),
        (
            "try going for a walk every morning, sunlight helps",
            "cut out sugar and caffeine",
            "ask your doctor about upping the dose",
            "depression is a chemical imbalance, it's not your fault",
            "have you tried meditation?",
            "exercise is the best antidepressant honestly",
        ),
    ),
    Topic(
        "anxiety",
        (
            "i had another panic attack on the bus today",
            "i can't make phone calls without shaking",
            "my heart races every time i have to talk in class",
            "i lie awake running through everything that could go wrong",
            "i canceled plans again because i couldn't face leaving the house",
            "i keep thinking people are laughing at me",
        ),
        ("terrified", "on edge", "overwhelmed", "embarrassed", "trapped", "scared"),
        (
            "the panic attacks",
            "having to make phone calls",
            "the constant worrying",
            "not being able to leave the house",
            "feeling watched all the time",
        ),
        (
            "i used to get panic attacks in the grocery store",
            "i couldn't order food at a counter for years",
            "i had to leave a lecture once because i thought i was having a heart attack",
            "i still rehearse phone calls in my head before i make them",
        ),
        (
            "what goes through your mind right before it starts?",
            "when did the panic attacks start?",
            "what does it feel like when it hits?",
            "are there places where you feel safer?",
        ),
        (
            "try the 4-7-8 breathing thing",
            "cut out coffee, it makes anxiety way worse",
            "a lot of people get panic attacks, it's really common",
            "propranolol helped my friend",
            "have you looked into cbt?",
            "just push through it, exposure is the only way",
        ),
    ),
    Topic(
        "grief",
        (
            "my mom passed away two weeks ago",
            "my grandpa died and i didn't get to say goodbye",
            "we had to put my dog down on saturday",
            "it's been a year since my brother died and it still hits me every day",
            "i keep picking up my phone to call her",
            "everyone went back to normal after the funeral and i can't",
        ),
        ("devastated", "lost", "guilty", "broken", "alone", "numb"),
        (
            "losing your mom",
            "not getting to say goodbye",
            "losing your dog",
            "your brother's death",
            "everyone moving on while you're still grieving",
        ),
        (
            "my dad died when i was nineteen and i still reach for the phone sometimes",
            "i lost my best friend in a car accident",
            "when my cat died i couldn't go into the kitchen for days",
            "i missed my grandma's last days because i was abroad",
        ),
        (
            "what was she like?",
            "what do you miss most about him?",
            "how are you coping with the quiet?",
            "do you have people around you right now?",
        ),
        (
            "grief counseling is usually free through hospice",
            "write a letter to her, it helps",
            "there are five stages of grief, you're probably in denial",
            "get another dog when you're ready",
            "everyone dies eventually, it's part of life",
            "have you sorted out the will yet?",
        ),
    ),
    Topic(
        "loneliness",
        (
            "i moved to a new city and don't know anyone",
            "i spent my birthday alone again",
            "nobody texts me unless they need something",
            "i eat lunch in my car so no one sees me alone",
            "all my friends have partners and i feel like a third wheel",
            "i haven't had a real conversation in weeks",
        ),
        ("lonely", "invisible", "forgotten", "left out", "sad", "isolated"),
        (
            "spending your birthday alone",
            "moving somewhere you don't know anyone",
            "nobody reaching out",
            "eating lunch alone",
            "feeling like the third wheel",
        ),
        (
            "i moved across the country for school and didn't make a friend for a year",
            "i've spent a few birthdays by myself too",
            "i used to eat in the library bathroom in high school",
            "i went months without anyone calling me after i moved",
        ),
        (
            "what's been the hardest part about being on your own?",
            "who did you used to be close to?",
            "what would a good friendship look like for you?",
            "how long has it felt this way?",
        ),
        (
            "join a club or a rec sports league",
            "download meetup, there are events every night",
            "get a pet, they're great company",
            "most adults have trouble making friends, it's normal",
            "have you tried bumble bff?",
            "volunteering is a good way to meet people",
        ),
    ),
    Topic(
        "family",
        (
            "my parents scream at each other every night",
            "my dad told me i'm a disappointment",
            "my mom reads my messages and won't let me have any privacy",
            "my sister stopped talking to me after an argument at christmas",
            "my parents are getting divorced and want me to pick a side",
            "i'm the only one taking care of my sick dad",
        ),
        ("hurt", "trapped", "angry", "unwanted", "torn", "exhausted"),
        (
            "your dad saying that",
            "the fighting at home",
            "having no privacy",
            "your sister cutting you off",
            "being stuck in the middle of the divorce",
            "caring for your dad on your own",
        ),
        (
            "my parents fought constantly when i was a teenager",
            "my father used to say i'd never amount to anything",
            "i didn't speak to my brother for almost three years",
            "i looked after my mom through her chemo mostly by myself",
        ),
        (
            "how do you usually handle it when they start fighting?",
            "what was your relationship with your dad like before this?",
            "is there anyone in the family you feel close to?",
            "how is all this affecting you day to day?",
        ),
        (
            "move out as soon as you turn eighteen",
            "call a family therapist",
            "parents are just like that, they don't mean it",
            "text your sister and apologize first",
            "have you talked to a lawyer about custody?",
            "siblings always make up eventually",
        ),
    ),
    Topic(
        "school",
        (
            "i failed my chemistry final and might lose my scholarship",
            "i have three exams next week and haven't started studying",
            "i'm the only one in my program who doesn't get it",
            "my parents expect straight a's and i got a c",
            "i dropped out of college and feel like a failure",
            "i freeze every time i sit down to write my thesis",
        ),
        ("stupid", "stressed", "ashamed", "behind", "panicked", "like a failure"),
        (
            "failing the final",
            "the exam pressure",
            "your parents' expectations",
            "dropping out",
            "being stuck on your thesis",
            "feeling behind everyone else",
        ),
        (
            "i failed organic chemistry twice",
            "i dropped out after my second year",
            "my parents freaked out over every b i got",
            "i spent about six months staring at a blank thesis document",
        ),
        (
            "what happened on the exam?",
            "what made you decide to leave?",
            "how do you feel about the program itself?",
            "what goes through your head when you sit down to write?",
        ),
        (
            "use the pomodoro technique",
            "go to office hours, professors love that",
            "grades don't matter after you graduate anyway",
            "try khan academy for chemistry",
            "have you asked for an extension?",
            "community college is way cheaper, just transfer",
        ),
    ),
    Topic(
        "selfesteem",
        (
            "i hate the way i look in every photo",
            "i feel like everyone is better than me at everything",
            "i can't take a compliment without thinking they're lying",
            "i compare myself to people on instagram all day",
            "i think i'm just unlovable",
            "i got called ugly in school and i still believe it",
        ),
        ("ugly", "not good enough", "worthless", "insecure", "unlovable", "ashamed"),
        (
            "hating how you look",
            "comparing yourself all the time",
            "not believing compliments",
            "feeling unlovable",
            "what they called you in school",
        ),
        (
            "i used to untag myself from every photo",
            "i spent years thinking i was unlovable",
            "i got bullied about my weight all through middle school",
            "i deleted instagram because i couldn't stop comparing",
        ),
        (
            "when did you start seeing yourself this way?",
            "whose voice does that criticism sound like?",
            "what would you say to a friend who felt like this?",
            "what do you think people see when they look at you?",
        ),
        (
            "delete social media, it's all fake anyway",
            "try skincare and a new haircut",
            "everyone is insecure about something",
            "lift weights, it fixes confidence",
            "have you tried affirmations in the mirror?",
            "looks don't matter that much honestly",
        ),
    ),
    Topic(
        "sleep",
        (
            "i haven't slept more than three hours a night this week",
            "i wake up at 4am every night and can't fall back asleep",
            "my mind won't shut off when i lie down",
            "i'm so tired at work i almost fell asleep driving",
        ),
        ("exhausted", "drained", "frustrated", "desperate", "foggy"),
        (
            "not sleeping",
            "waking up at 4am every night",
            "your mind racing at night",
            "being that exhausted",
        ),
        (
            "i had insomnia for most of last winter",
            "i used to lie awake until sunrise",
            "i nodded off at a red light once after a week of no sleep",
        ),
        (
            "what's on your mind when you're lying awake?",
            "when did the sleep problems start?",
            "how is the tiredness affecting the rest of your day?",
        ),
        (
            "no screens an hour before bed",
            "melatonin works for me",
            "try magnesium before bed",
            "adults need seven to nine hours of sleep",
            "have you tried a weighted blanket?",
            "white noise machines are great",
        ),
    ),
    Topic(
        "friendship",
        (
            "my best friend has been ignoring my texts for weeks",
            "i found out my friends had a group chat without me",
            "my friend told everyone a secret i trusted her with",
            "i always make the plans and nobody ever invites me",
        ),
        ("betrayed", "hurt", "left out", "rejected", "unwanted"),
        (
            "your best friend ignoring you",
            "finding the group chat",
            "her telling your secret",
            "always being the one who reaches out",
        ),
        (
            "a friend of mine spread something private about me in college",
            "i found out about a trip my friends took without me",
            "i was always the planner in my friend group too",
        ),
        (
            "what do you think changed between you?",
            "how did you find out?",
            "how did it feel when you saw the chat?",
        ),
        (
            "confront her directly",
            "find new friends, they're not worth it",
            "people drift apart, it happens",
            "just stop texting first and see who notices",
            "have you asked her what's going on?",
            "friend groups always have drama",
        ),
    ),
    Topic(
        "health",
        (
            "i just got diagnosed with diabetes and i'm twenty-two",
            "my chronic pain has gotten so bad i can't work",
            "doctors keep telling me it's all in my head",
            "i'm waiting on biopsy results and can't think about anything else",
        ),
        ("scared", "frustrated", "dismissed", "overwhelmed", "angry"),
        (
            "the diagnosis",
            "living with constant pain",
            "doctors not believing you",
            "waiting on the results",
        ),
        (
            "i was diagnosed with crohn's at twenty",
            "i had years of pain before anyone took me seriously",
            "i waited two weeks for biopsy results once",
        ),
        (
            "how are you feeling about the diagnosis?",
            "what's the pain like on a bad day?",
            "what has the waiting been like?",
        ),
        (
            "get a second opinion",
            "look into an anti-inflammatory diet",
            "diabetes is very manageable these days",
            "a lot of biopsies come back benign",
            "have you tried physical therapy?",
            "doctors are overworked, they miss stuff",
        ),
    ),
    Topic(
        "addiction",
        (
            "i relapsed last night after eight months sober",
            "i can't stop drinking every night after work",
            "i spend hours gambling on my phone and lost my savings",
            "i told myself i'd quit smoking weed and i'm still doing it every day",
        ),
        ("ashamed", "disappointed in myself", "out of control", "guilty", "weak"),
        ("the relapse", "drinking every night", "losing your savings", "not being able to quit"),
        (
            "i relapsed twice before i got a year sober",
            "i drank every night for about five years",
            "i lost a lot of money on sports betting",
        ),
        (
            "what was going on right before the relapse?",
            "how do you feel after you drink?",
            "what made you want to quit in the first place?",
        ),
        (
            "go to an aa meeting tonight",
            "delete the betting apps",
            "naltrexone helps with cravings",
            "addiction is a disease, the stats on relapse are high",
            "have you tried smart recovery?",
            "just throw it all out",
        ),
    ),
    Topic(
        "bullying",
        (
            "kids at school trip me in the hallway every day",
            "my coworkers make fun of my accent",
            "someone made a fake account to mock me",
            "i get called names every time i walk into class",
        ),
        ("humiliated", "scared", "alone", "angry", "small"),
        (
            "being bullied at school",
            "your coworkers mocking you",
            "the fake account",
            "being called names every day",
        ),
        (
            "i got shoved into lockers all through ninth grade",
            "people used to imitate my stutter",
            "someone made a meme of me in high school",
        ),
        (
            "how long has this been going on?",
            "how do you feel walking into class now?",
            "what's it like for you when they do that?",
        ),
        (
            "tell a teacher",
            "report the account to the platform",
            "fight back once and they'll stop",
            "bullies are usually insecure themselves",
            "have you told your parents?",
            "switch schools if you can",
        ),
    ),
    Topic(
        "burnout",
        (
            "i work sixty hours a week and still feel behind",
            "i cried in the office bathroom today",
            "i used to love my job and now i dread every monday",
            "i'm a nurse and i have nothing left to give",
        ),
        ("burned out", "exhausted", "drained", "overwhelmed", "empty"),
        (
            "working sixty hour weeks",
            "crying at work",
            "dreading every monday",
            "giving everything to your patients",
        ),
        (
            "i burned out hard at my last job",
            "i cried in my car before every shift for a while",
            "i was a teacher and hit a wall after five years",
        ),
        (
            "when did it start feeling like this?",
            "what part of the work drains you most?",
            "what used to make you love the job?",
        ),
        (
            "take a mental health day",
            "look for a new job",
            "set boundaries with your boss",
            "burnout is recognized by the who now",
            "have you tried a four day week?",
            "just use your vacation days",
        ),
    ),
    Topic(
        "parenting",
        (
            "my newborn won't stop crying and i haven't slept in days",
            "i yelled at my son and i feel like a terrible mom",
            "my teenager won't talk to me anymore",
            "i'm a single dad and i feel like i'm failing my kids",
        ),
        ("guilty", "exhausted", "like a failure", "shut out", "overwhelmed"),
        (
            "the newborn stage",
            "yelling at your son",
            "your teenager shutting you out",
            "raising the kids on your own",
        ),
        (
            "my first baby had colic for three months",
            "i've yelled at my kids and felt awful after",
            "my daughter barely spoke to me for a year when she was fifteen",
        ),
        (
            "how are you doing, not the baby, you?",
            "what happened before you yelled?",
            "what was your relationship like with him when he was younger?",
        ),
        (
            "try a white noise machine for the baby",
            "take away his phone",
            "teenagers are supposed to pull away",
            "look into parenting classes",
            "have you tried sleep training?",
            "kids are resilient, they'll be fine",
        ),
    ),
    Topic(
        "money",
        (
            "i'm drowning in credit card debt",
            "my car broke down and i can't afford to fix it",
            "i had to borrow money from my parents again",
            "i'm one paycheck away from being homeless",
        ),
        ("stressed", "ashamed", "trapped", "scared", "embarrassed"),
        (
            "the debt",
            "your car breaking down",
            "borrowing from your parents",
            "living one paycheck from losing your place",
        ),
        (
            "i had about thirty grand in credit card debt at one point",
            "i lived out of my car for a few months",
            "i had to ask my parents for rent more than once",
        ),
        (
            "how long have things been this tight?",
            "what's weighing on you most about it?",
            "how are you feeling about asking them for help?",
        ),
        (
            "try the debt snowball method",
            "call the card company and ask for a lower rate",
            "most americans live paycheck to paycheck",
            "sell stuff on marketplace",
            "have you looked into a credit union loan?",
            "get a side hustle like delivery driving",
        ),
    ),
    Topic(
        "general",
        (
            "i don't even know why i'm posting this",
            "everything just feels pointless lately",
            "i feel like i'm falling apart and nobody notices",
            "i'm so tired of pretending i'm fine",
            "i just need someone to talk to",
            "today was really bad",
        ),
        ("lost", "tired", "alone", "overwhelmed", "sad", "numb"),
        (
            "pretending you're fine",
            "everything feeling pointless",
            "nobody noticing",
            "today being so bad",
        ),
        (
            "i've had stretches where everything felt pointless",
            "i pretended i was fine for years",
            "i've felt like i was falling apart with nobody noticing",
        ),
        ("what's been going on?", "what made today so bad?", "how long have you been pretending?"),
        (
            "drink some water and go to bed",
            "tomorrow is a new day",
            "maybe try journaling",
            "posting here is a good idea, lots of people read this sub",
            "have you thought about therapy?",
            "call a hotline if it gets bad",
        ),
    ),
)

POST_OPENERS = ("throwaway because people know my main.", "not sure this is the right place.",
                "sorry for the long post.", "first time posting here.", "i need to vent.",
                "idk what to do anymore.", "long time lurker.", "")  # fmt: skip
POST_FEELING = ("i feel so {f}.", "i just feel {f} all the time.", "honestly i'm {f}.",
                "i've never felt this {f} in my life.", "i feel {f} and i hate it.",
                "everything makes me feel {f} right now.", "i'm just so {f}.")  # fmt: skip
POST_CLOSERS = ("does anyone else feel like this?", "i don't know what to do.",
                "any advice?", "i just needed to get that out.", "will it ever get better?",
                "is this normal?", "thanks for reading.", "what should i do?",
                "i can't keep doing this.", "i'm so done.")  # fmt: skip

# --------------------------------------------------------------------------------------------
# Reply moves
# --------------------------------------------------------------------------------------------
WARM: tuple[str, ...] = (
    "I'm so sorry you're going through this.", "That sounds awful.", "Sending hugs.",
    "I'm here for you.", "Ugh, that's rough.", "That really sucks, I'm sorry.",
    "Sorry to hear that man.", "Hang in there.", "Big hugs to you.", "Sorry you're dealing with this.",
    "I'm really sorry.", "That's so hard.", "Oh no, I'm sorry.", "Damn, that's a lot to carry.",
    "You don't deserve this.", "That's a really tough spot to be in.", "Sorry friend.",
    "I hope things get easier for you soon.", "Thinking of you.", "You're not alone in this.",
    "That sounds so hard.", "Oof, I'm sorry.", "I'm sorry it's been like this.",
    "Wishing you the best, truly.", "That must be really tough.", "I'm glad you posted.",
    "Take care of yourself, okay?", "Feel free to message me if you need to talk.",
    "You matter, even if it doesn't feel like it.", "It's going to be okay.",
    "I care about what happens to you.", "Hugs if you want them.", "*hugs*", "Stay strong.",
    "I'm sorry you feel this way.", "I really hope you feel better soon.", "Sorry this happened.",
    "That's terrible, I'm sorry.", "Aw man, I'm sorry.", "Sending you love.", "Ugh, I'm sorry.",
    "That's not fair to you at all.", "You deserve so much better than this.",
    "Please be gentle with yourself.", "I'm rooting for you.", "We're here if you need us.",
    "I'm sorry things are so hard right now.", "That's a lot, I'm sorry.", "Stay safe okay?",
    "You'll get through this.", "I hope tomorrow is kinder to you.", "Glad you're still here.",
)  # fmt: skip
WARM_STRONG: tuple[str, ...] = (
    "I'm so sorry, that sounds heartbreaking.", "My heart breaks reading this.",
    "I feel so sad for you reading this.", "Honestly I'm worried about you.",
    "That must feel so {f}, I'm really sorry.", "It hurts just reading this, I can't imagine living it.",
    "My heart goes out to you, feeling {f} like that is so painful.",
    "I'm really sorry you feel so {f}, nobody should have to feel that.",
    "I can only imagine how painful {you} must be.", "This made me tear up, I'm so sorry.",
    "I'm genuinely concerned for you and I'm so sorry you're hurting this much.",
    "Feeling {f} like that is awful and I'm so sorry you're in it.",
    "I hate that you're going through {you}, it sounds devastating.",
    "Reading about {you} honestly broke my heart.", "I'm so so sorry, that's devastating.",
    "That sounds incredibly lonely and I'm so sorry.", "I'm really scared for you reading this.",
    "I'm heartbroken for you.", "Oh my god, I'm so sorry, that's horrible.",
    "This is so painful to read, I'm really sorry you're living it.",
)  # fmt: skip
REFLECT: tuple[str, ...] = (
    "It sounds like {you} has left you feeling really {f}.",
    "So {you} is weighing on you and you feel {f}.",
    "You're feeling {f} because of {you}, and that makes total sense.",
    "Sounds like you're really {f} about {you}.",
    "It seems like you've been carrying {you} mostly on your own.",
    "I can tell {you} has been eating at you.",
    "From what you wrote, {you} has knocked the wind out of you.",
    "it sounds like {you} made you feel {f} and kind of stuck.",
    "You feel {f}, and {you} keeps making it worse.",
    "Reading this, it seems like {you} hit you harder than anyone around you realizes.",
    "It's like {you} has taken over everything and you feel {f} most of the time.",
    "Feeling {f} after {you} is such a normal reaction.",
)  # fmt: skip
INTERPRET: tuple[str, ...] = (
    "I think what hurts most isn't {you} itself, it's feeling like you don't matter to anyone.",
    "Maybe the {f} feeling is really about feeling stuck with no way out.",
    "It sounds like underneath all this you're scared it's always going to be like this.",
    "It's like {you} took away the thing that made you feel like yourself.",
    "I wonder if part of the {f} is that you feel you should be handling {you} better than you are.",
    "Reading between the lines, it sounds like you feel alone with {you} and nobody really sees it.",
    "It seems like {you} made you question whether you're good enough, and that's the part that stings.",
    "I get the sense you're less upset about {you} than about what it seems to say about you.",
)  # fmt: skip
SHARED: tuple[str, ...] = (
    "{mine}, and I felt {f} for a long time.", "I've been there. {mine}.",
    "Been through the same thing, {mine}.", "Same here, {mine} and it felt exactly like that.",
    "{mine}, so I know a bit of how {f} that feels.",
    "I know that feeling, {mine} and I felt {f} too.", "I feel the same way most days.",
    "I'm in the exact same boat right now.", "I used to feel exactly like this.",
    "I'm going through something really similar.", "Me too, every single day, I get it.",
    "I've felt that {f} emptiness too, for years.", "I struggle with this too, you're not the only one.",
    "I remember feeling like I was the only one, and it was awful.",
    "Not the same but close: {mine}, and I remember feeling {f} and confused.",
)  # fmt: skip
EXPLORE: tuple[str, ...] = (
    "What happened?", "Do you want to talk about it?", "How long has this been going on?",
    "How are you feeling right now?", "What's been going on lately?",
    "Can you tell us more about what's going on?", "What do you think set it off?",
    "How are you holding up?", "Is there something specific that's making you feel this way?",
    "When did you start feeling like this?", "What's on your mind?",
    "Do you know why you feel this way?", "How are you feeling about {you} now?",
    "What's been the hardest part of {you}?", "What do you think is behind the {f} feeling?",
    "How long have you felt {f}?", "How did you feel when it happened?",
    "What would you want to happen next?", "Want to tell me a bit more about {you}?",
    "What does that feel like for you day to day?", "What's going through your head about it?",
    "Do you have anyone you can talk to about this?", "What's making you feel so {f}?",
    "Are you feeling safe right now?", "How have you been coping?", "What do you mean by that?",
    "Why do you think you feel like that?", "What would make today a little easier?",
    "Is this something that's happened before?", "How are things at home?",
    "Can I ask what happened with {you}?", "Did something happen recently?",
)  # fmt: skip
AFFIRM: tuple[str, ...] = (
    "Posting this took guts.", "Reaching out like this is a really good step.",
    "It's good that you wrote this down instead of keeping it in.",
    "You did the right thing telling someone.", "Getting through today was already a lot.",
    "You're doing better than you think, honestly.", "Asking for help is a strong thing to do.",
    "You handled that a lot better than most people would have.",
    "The fact that you're still trying says a lot about you.",
    "Getting out of bed on days like that counts, don't let anyone tell you otherwise.",
    "You kept showing up even when it was this hard, that's not nothing.",
    "Saying no to them was the right call.", "Going to that appointment was brave.",
    "You stood up for yourself there, good for you.", "Taking a break was the smart move.",
    "It sounds like you did everything you could.",
)  # fmt: skip
EMPOWER: tuple[str, ...] = (
    "You know yourself better than anyone, and you'll figure out what's right for you.",
    "You've survived every bad day so far, that says a lot about you.",
    "Whatever you decide, it's your call and you're allowed to take your time.",
    "You're clearly stronger than you give yourself credit for.",
    "You already got through a lot of this on your own, you have more in you than it feels like.",
    "You get to decide what happens next, not them.",
    "You're allowed to put yourself first for once.",
    "You've done hard things before and you can do this one too, at your own pace.",
    "It's your life, you get to set the terms.",
    "Trust your gut on this one, it got you this far.",
    "You don't owe anyone an explanation for taking care of yourself.",
    "Whatever you choose, you'll handle it, you clearly care a lot.",
)  # fmt: skip
#: Encouragement that alludes to feelings without naming them: affective warmth (A1) only.
ENCOURAGE: tuple[str, ...] = (
    "It will get better, I promise.", "Things will turn around for you.",
    "You're going to be okay.", "Don't give up, okay?", "Keep your head up.",
    "It won't always feel like this.", "Hang on, the bad days do pass.",
    "Better days are coming, really.", "You've got people rooting for you, including me.",
    "You're worth so much more than this.", "Be kind to yourself tonight.",
    "One day at a time, you'll get there.", "Don't be so hard on yourself.",
    "You deserve to be happy.", "This isn't the end of your story.",
    "Give yourself some credit, you're trying.", "I believe in you.",
    "You are not a burden.", "You're not broken, you're hurting.",
)  # fmt: skip
#: Offers of one's time or help (concern shown as availability): affective warmth (A1); asked as
#: a question they also invite the person to go on (P1).
OFFER: tuple[str, ...] = (
    "My inbox is open if you ever want to talk.", "I'm around tonight if you need someone to listen.",
    "Happy to listen if you want to vent some more.", "I've got time if you want to get it all out.",
    "You can message me whenever, I mean it.", "If it helps to talk it through with a stranger, I'm here.",
    "Ping me anytime, even at 3am.", "I'll check back on this thread later to see how you're doing.",
    "Count me in as someone you can talk to.", "No pressure, but I'm a good listener if you want one.",
)  # fmt: skip
OFFER_ASK: tuple[str, ...] = (
    "Want to talk it through with me?", "Anything I can do from here?", "Need someone to talk to tonight?",
    "Would it help to vent a bit more? I'm listening.", "Can I help somehow?",
    "Do you want company while you wait it out? I'm up.", "Want me to check in on you tomorrow?",
)  # fmt: skip
#: Reasoned advice, persuasion and opinion addressed to the person, in two or three sentences that
#: may mention their feelings: no level on any axis (advice is not understanding, EPITOME's IP
#: and EMPA's C alike). ``{z}`` is one of the topic's level-0 sentences.
ARGUE_LEAD: tuple[str, ...] = (
    "Look, {you} isn't going to fix itself.", "You can't let {you} run your whole life.",
    "Honestly the way I see it, you're overthinking {you}.",
    "You may feel {f} now, but feelings pass and decisions stay.",
    "The thing with {you} is that everybody goes through something like it eventually.",
    "If you keep going over it you'll only make it worse.",
    "You have to look at the bigger picture here.", "There's a simple way to look at this.",
    "You know what I'd do in your position?", "It's not as complicated as it feels.",
    "From a practical point of view, you have options.", "Here's the thing nobody tells you.",
)  # fmt: skip
ARGUE_CLOSE: tuple[str, ...] = (
    "That's just how it works.", "Nobody else can do it for you.",
    "It's not as bad as it looks from inside it.", "Most people figure it out eventually.",
    "It worked for me and it will work for you.", "Trust me on this one.",
    "The sooner you do it the better.", "Then you'll see it differently.",
)  # fmt: skip


def _argue(post: Post, rng: random.Random) -> str:
    """Reasoned advice or persuasion addressed to the person (level 0 on every axis)."""
    z = _cap(rng.choice(post.topic.zero))
    z = z if z[-1] in ".?!" else z + "."
    parts = [_cap(_fill(rng.choice(ARGUE_LEAD), post, rng)), z]
    if rng.random() < 0.5:
        parts.append(rng.choice(ARGUE_CLOSE))
    return " ".join(parts)


GENERIC_ZERO: tuple[str, ...] = (
    "Life is weird sometimes.", "Everyone has bad days.", "It is what it is.",
    "This belongs in another sub tbh.", "Upvoted for visibility.", "Edit: formatting.",
    "Check the sidebar, there's a list of resources.", "There's a great subreddit for this.",
    "I read somewhere that most people feel this way at some point.", "lol same energy as my monday.",
    "At least it's friday.", "I went fishing yesterday and caught nothing lol.",
    "My cousin moved to japan last year, totally different life.", "Who even does that?",
    "Isn't that always the way?", "Have you thought about therapy?", "Therapy helps.",
    "Drink water and get some sleep.", "Try to think positive.", "Time heals everything.",
    "I don't really agree with that, but okay.", "Not sure what you expected tbh.",
    "Google it, there's tons of info.", "Here's a link that might help: example.org/help",
    "Have you tried yoga?", "Go outside and touch grass.", "My dog is asleep on my foot rn.",
    "Men and women just think differently.", "Statistically it gets better after thirty.",
    "You should write a book about this.", "Interesting post.", "Just my two cents.",
    "Why not just move?", "Try cold showers.", "I'm not a doctor but vitamin d helps.",
    "Same thing happened in a show i watched.", "Crazy how the world works.",
    "Lots of people have it way worse.", "Just keep busy.", "Plenty of fish in the sea.",
    "I would recommend making a list of pros and cons and going from there.",
    "You should probably talk to a professional about this, they know what to do.",
    "Honestly the best thing I ever did was start running every morning.",
    "There are free apps like headspace that walk you through this stuff.",
    "In my experience people on this sub give pretty good advice.",
    "My advice is to get a job, stay busy, and stop overthinking it.",
    "Try writing down three things you're grateful for every night.",
    "A lot of it comes down to diet, sleep and exercise.",
    "I think you should just tell them how it is.", "Have you talked to your doctor?",
    "Maybe try a different approach next time.", "You could always look for a new place.",
    "Reddit is not a replacement for professional help.", "This is why I don't use facebook.",
    "Happy cake day btw.", "My brother is an electrician and loves it.",
    "Read the book feeling good by david burns.", "Did you see the game last night?",
)  # fmt: skip
NEGATIVE: tuple[tuple[str, str, int, str], ...] = (
    ("You're overreacting honestly.", "C_Neg", -2, "denies the user's reality"),
    ("Just get over it.", "A_Neg", -2, "dismisses the user"),
    ("Stop whining, people have real problems.", "A_Neg", -2, "contempt for the user"),
    ("That's kind of your own fault.", "A_Neg", -2, "blames the user"),
    ("Man up.", "A_Neg", -2, "contempt for the user"),
    ("Nothing ever really gets better, sorry.", "P_Neg", -2, "implies effort is pointless"),
    ("Just be positive and it'll all work out!!", "P_Neg", -1, "templated encouragement"),
    ("lol first world problems.", "C_Neg", -2, "denies the user's reality"),
    ("You need to stop feeling sorry for yourself.", "P_Neg", -1, "lectures the user"),
    ("Sounds like you're being dramatic.", "C_Neg", -2, "denies the user's reality"),
)  # fmt: skip
REASONS = {
    "A_Prog": {1: "expresses warmth, sympathy or concern", 2: "explicit compassion naming the feeling"},
    "C_Prog": {1: "shows understanding of what they feel or went through",
               2: "interprets what the situation means to them"},
    "P_Prog": {1: "invites them to say more or affirms what they did",
               2: "asks specifically about their situation, or hands agency back"},
}  # fmt: skip


@dataclass
class _Sent:
    text: str
    levels: dict[str, int]
    reasons: dict[str, str]


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def casualise(text: str, rng: random.Random, level: float) -> str:
    """Forum register: lowercase, no apostrophes, "u", a typo, no final stop (by ``level``)."""
    if rng.random() < level:
        text = text[:1].lower() + text[1:] if rng.random() < 0.5 else text.lower()
    if rng.random() < level * 0.5:
        text = text.replace("'", "")
    if rng.random() < level * 0.3:
        text = re.sub(r"\byou\b", "u", text)
    if rng.random() < level * 0.3:
        words = text.split(" ")
        j = rng.randrange(len(words))
        words[j] = _typo(words[j], rng)
        text = " ".join(words)
    if rng.random() < level * 0.4 and text.endswith("."):
        text = text[:-1] + rng.choice(("", "...", " :(", "!"))
    return text


@dataclass(frozen=True)
class Post:
    id: str
    topic: Topic
    text: str
    feeling: str


def make_post(topic: Topic, rng: random.Random, k: int) -> Post:
    lines = rng.sample(list(topic.lines), k=rng.choice((1, 1, 2, 2, 3, 4)))
    f = rng.choice(topic.feelings)
    parts = [ln[:1].upper() + ln[1:] + "." for ln in lines]
    if rng.random() < 0.6:
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(POST_FEELING).format(f=f))
    if rng.random() < 0.4:
        parts.insert(0, rng.choice(POST_OPENERS))
    if rng.random() < 0.5:
        parts.append(rng.choice(POST_CLOSERS))
    if rng.random() < 0.3:  # a general line from another topic makes posts less template-like
        parts.insert(1, rng.choice(TOPICS[-1].lines) + ".")
    text = " ".join(p for p in parts if p)
    text = casualise(text, rng, 0.6)
    return Post(f"forum-{topic.name}-{k}", topic, text, f)


def _fill(template: str, post: Post, rng: random.Random) -> str:
    return template.format(f=rng.choice((post.feeling, *post.topic.feelings[:2])),
                           you=rng.choice(post.topic.you),
                           mine=rng.choice(post.topic.mine))  # fmt: skip


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


#: Continuations of a first-person account of a similar experience (the "story" move).
STORY_AFTER: tuple[str, ...] = (
    "the nights were the worst part for me.", "it took me months before i felt like myself again.",
    "i didn't tell anyone for a long time because i was ashamed.",
    "some days i couldn't get out of bed at all.", "i kept thinking it was all my fault.",
    "i remember lying awake replaying everything.", "people around me had no idea what was going on.",
    "it still comes back sometimes, but it's a lot quieter now.",
    "i felt {f} for most of that year.", "i was so {f} i stopped answering my phone.",
    "honestly i thought it would never end.", "what got me was how alone it felt.",
)  # fmt: skip


def _story(post: Post, rng: random.Random) -> str:
    """A first-person account of a similar experience, two or three sentences."""
    lead = _cap(rng.choice(post.topic.mine)) + "."
    tail = rng.sample(STORY_AFTER, rng.choice((1, 2)))
    return " ".join([lead, *(_cap(_fill(t, post, rng)) for t in tail)])


#: Reply moves: name -> (levels the sentence carries, how to write it). The labels follow the
#: construct definitions of Sharma et al. (EMNLP 2020) mapped to EMPA's axes: warmth, compassion
#: and encouragement that alludes to feelings are affective (A); communicated understanding and
#: sharing a similar experience of one's own are cognitive (C); questions that invite the seeker
#: to say more are proactive (P: generic 1, specific to their situation 2), as are affirming what
#: they did (1) and handing agency back (2).
MOVES: dict[str, tuple[dict[str, int], Callable[[Post, random.Random], str]]] = {
    "warm": ({"A_Prog": 1}, lambda p, r: r.choice(WARM)),
    "encourage": ({"A_Prog": 1}, lambda p, r: r.choice(ENCOURAGE)),
    "warm_strong": ({"A_Prog": 2}, lambda p, r: _fill(r.choice(WARM_STRONG), p, r)),
    "reflect": ({"C_Prog": 1}, lambda p, r: _cap(_fill(r.choice(REFLECT), p, r))),
    "shared": ({"C_Prog": 1}, lambda p, r: _cap(_fill(r.choice(SHARED), p, r))),
    "story": ({"C_Prog": 1}, lambda p, r: _story(p, r)),
    "interpret": ({"C_Prog": 2}, lambda p, r: _fill(r.choice(INTERPRET), p, r)),
    "explore": ({"P_Prog": 1}, lambda p, r: _fill(r.choice(EXPLORE), p, r)),
    "explore_topic": ({"P_Prog": 2}, lambda p, r: _cap(r.choice(p.topic.questions))),
    "affirm": ({"P_Prog": 1, "A_Prog": 1}, lambda p, r: r.choice(AFFIRM)),
    "empower": ({"P_Prog": 2, "A_Prog": 1}, lambda p, r: r.choice(EMPOWER)),
    "offer": ({"A_Prog": 1}, lambda p, r: r.choice(OFFER)),
    "offer_ask": ({"A_Prog": 1, "P_Prog": 1}, lambda p, r: r.choice(OFFER_ASK)),
}
#: Moves that carry the post's topic (a reply with one of them is off-topic for another post).
TOPICAL = {"reflect", "shared", "story", "interpret", "explore_topic"}


def _zero_sentence(post: Post, rng: random.Random) -> str:
    if rng.random() < 0.2:
        return _argue(post, rng)
    if rng.random() < 0.5:
        return _cap(rng.choice(post.topic.zero)) + rng.choice((".", ".", "", "!"))
    return rng.choice(GENERIC_ZERO)


def reply_sentences(post: Post, rng: random.Random) -> tuple[list[_Sent], set[str]]:
    """One reply: a random mix of moves and level-0 sentences, in random order."""
    moves: list[str] = []
    mode = rng.random()
    if mode >= 0.3:  # 70 %: at least one progress move
        for axis_moves, p in ((("warm", "warm", "encourage", "warm_strong", "offer", "offer_ask"), 0.5),
                              (("reflect", "shared", "story", "interpret"), 0.45),
                              (("explore", "explore", "explore_topic", "affirm", "empower"), 0.45)):  # fmt: skip
            if rng.random() < p:
                moves.append(rng.choice(axis_moves))
        if not moves:
            moves.append(rng.choice(list(MOVES)))
    n_zero = rng.choice((0, 0, 1, 1, 2, 3)) if moves else rng.choice((1, 1, 2, 2, 3, 4))
    out: list[_Sent] = []
    for m in moves:
        levels, make = MOVES[m]
        reasons = {k: REASONS[k][lv] for k, lv in levels.items()}
        if m in ("affirm", "empower"):
            reasons["A_Prog"] = "encourages them warmly"
        elif m in ("offer", "offer_ask"):
            reasons["A_Prog"] = "offers their time or help: concern for them"
        out.append(_Sent(make(post, rng), dict(levels), reasons))
    for _ in range(n_zero):
        out.append(_Sent(_zero_sentence(post, rng), {}, {}))
    if rng.random() < 0.08:
        text, key, lvl, why = rng.choice(NEGATIVE)
        out.append(_Sent(text, {key: lvl}, {key: why}))
    rng.shuffle(out)
    level = rng.choice((0.0, 0.3, 0.7))
    for s in out:
        s.text = casualise(s.text, rng, level)
    return out[:6], set(moves)


def _compose(sents: Sequence[_Sent]) -> tuple[str, dict[str, int], dict[str, str], dict[str, str]]:
    reply = " ".join(s.text for s in sents)
    levels = dict.fromkeys(LEVEL_KEYS, 0)
    evidence: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for s in sents:
        for key, lvl in s.levels.items():
            if abs(lvl) > abs(levels[key]):
                levels[key], evidence[key], reasons[key] = lvl, s.text, s.reasons[key]
    return reply, levels, evidence, reasons


def _parts(sents: Sequence[_Sent]) -> list[dict]:
    """The reply's parts (each move or level-0 remark) with their own non-zero levels."""
    return [{"text": x.text, "levels": {k: v for k, v in x.levels.items() if v}} for x in sents]


def forum_records(rng: random.Random, n_posts: int, replies_per_post: int,
                  off_topic_rate: float) -> list[Record]:  # fmt: skip
    """Posts across all topics, ``replies_per_post`` replies each, plus off-topic pairs."""
    posts = [make_post(TOPICS[k % len(TOPICS)], rng, k) for k in range(n_posts)]
    records: list[Record] = []
    for i, post in enumerate(posts):
        for j in range(replies_per_post):
            sents, _ = reply_sentences(post, rng)
            reply, levels, evidence, reasons = _compose(sents)
            summary = "; ".join(f"{k} {v}: {reasons[k]}" for k, v in levels.items() if v)
            records.append(Record(f"{post.id}/forum/{j}", [post.text], reply, levels, evidence,
                                  reasons, summary or "forum reply: no level earned", "forum",
                                  "forum", post.id, "post",
                                  parts=_parts(sents) if len(sents) > 1 else []))  # fmt: skip
        if rng.random() < off_topic_rate:
            other = posts[rng.randrange(len(posts))]
            if other.topic.name in (post.topic.name, "general"):
                continue
            sents, moves = reply_sentences(other, rng)
            if not moves & TOPICAL:
                key = rng.choice(sorted(TOPICAL))
                sents.insert(0, _Sent(_cap(MOVES[key][1](other, rng)), {}, {}))
            reply = " ".join(s.text for s in sents)
            first = sents[0].text
            levels = dict.fromkeys(LEVEL_KEYS, 0)
            levels["C_Neg"] = -1
            why = "answers a different person's situation"
            records.append(Record(f"{post.id}/forum_off_topic/{i}", [post.text], reply, levels,
                                  {"C_Neg": first}, {"C_Neg": why},
                                  f"off_topic (forum): no progress; C_Neg -1: {why}",
                                  "forum_off_topic", "forum", post.id, "post"))  # fmt: skip
    return records
