"""Words that are never a subject on their own, in the languages the corpus holds.

A sentence starts with a capital in English, Dutch, German, French, Spanish and
Russian alike, so each language's function words would otherwise be proposed as
names ("Het", "Die", "Les"). Generic words name a kind of thing, not a thing
("Explanation", "URL"), and the keywords of code and diagram languages ("TD",
"End", "SELECT") are syntax. A person's own wiki may still hold such a subject:
the title of the conversation brings it back (dreaming/subjects/candidates.py).
"""

from __future__ import annotations

_ENGLISH = """a about above after again all also an and any are as at be because been before
    being below between both but by can could did do does doing done down during each
    few for from further had has have having he her here hers him his how i i'd i'll
    i'm i've if in into is it it's its itself just let let's like me more most my no
    nor not now of off on once only or other our out over own same she should so some
    such than that that's the their them then there these they this those through to
    too under until up very was we we'll we're we've were what when where which while
    who whom why will with would yes you you'd you'll you're you've your okay ok sure
    thanks thank please hi hello hey great good well note here's there's what's however
    first second third next finally maybe perhaps instead also yet still even really
    one two three four five six seven eight nine ten many much every either neither
    whether although though unless since via per etc ie eg vs"""
_DUTCH = """de het een en van ik je jij u hij zij ze wij we jullie zijn is was waren ben
    bent heb hebt heeft hebben had dat die dit deze wat wie waar hoe waarom wanneer niet
    geen met voor op aan in uit bij naar om over onder tot door als maar of want dus ook
    nog al wel toch er hier daar dan nu zo zeer heel mijn jouw uw zijn haar onze hun
    kan kun kunt kunnen wil wilt willen moet moeten zal zult zullen mag mogen ja nee"""
_GERMAN = """der die das den dem des ein eine einer eines einem einen und oder aber denn
    doch ich du er sie es wir ihr mein dein sein unser euer ist sind war waren bin bist
    hat haben hatte habe wird werden wurde kann können muss müssen soll sollen will
    wollen darf nicht kein keine mit von zu zum zur für auf an in im aus bei nach über
    unter durch als wie wenn dass ob was wer wo warum hier dort da dann jetzt so auch
    noch schon nur sehr ja nein bitte danke"""
_FRENCH = """le la les l un une des du de d et ou mais donc car ni je tu il elle nous vous
    ils elles on mon ma mes ton ta tes son sa ses notre votre leur leurs ce cet cette
    ces est sont était être avoir ai as avons avez ont a fait faire peut pouvez
    peuvent doit dans sur sous avec pour par en au aux chez sans que qui quoi où
    comment pourquoi quand si ne pas plus très aussi ici là alors bien oui non merci"""
_SPANISH = """el la los las un una unos unas y o u pero sino ni que de del al a en con por
    para sin sobre entre hasta desde yo tú él ella nosotros vosotros ellos ellas usted
    ustedes mi mis tu tus su sus nuestro este esta estos estas ese esa eso es son era
    fue ser estar está están hay tiene tienen tengo puede pueden no sí muy más también
    aquí allí cómo como qué cuál quién dónde cuándo por qué porque si gracias"""
_RUSSIAN = """и в во не что он на я с со как а то все она так его но да ты к у же вы за
    бы по только ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг
    ли если уже или ни быть был него до вас нибудь опять уж вам ведь там потом себя
    ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без
    будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой
    совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех
    никогда можно при наконец два об другой хоть после над больше тот через эти нас
    про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда
    лучше чуть том нельзя такой им более всегда конечно всю между это эта пожалуйста
    спасибо сделай добавь создай"""
_GENERIC = """step steps option options answer answers question questions user assistant
    conversation model thing things way ways idea ideas issue issues problem problems
    solution solutions platform system systems tool tools code file files data function
    functions value values error errors output input result results test tests type
    types list lists item items name names part parts version update updates change
    changes use using used explanation explanations example examples summary overview
    introduction conclusion science order generate create add fix make build write
    implement review research investigate examine explain compare comparison round
    url urls uri path paths api apis ui ux cli gui sha hash id ids html css json yaml
    xml svg csv image images text texts page pages link links tech technical ai llm
    app apps web site website master main default new old other current latest final
    start end begin stop done next previous top bottom left right up down yes no
    important note notes tip tips warning caution info details detail context task
    tasks plan plans approach method methods feature features content contents
    section sections message messages number numbers string strings object objects
    class classes module modules package packages library libraries framework
    monday tuesday wednesday thursday friday saturday sunday january february march
    april may june july august september october november december today tomorrow
    yesterday true false none null nil self this src lib init index readme todo fixme
    project projects subdir folder folders directory directories agent agents
    proper better best good simple simpler easy correct right wrong full whole quick
    clean nice real actual specific different similar same various several multiple
    single entire additional extra high low large small big little possible available"""
_AGENT_TOOLS = """todowrite multiedit edit write read glob grep ls bash bashoutput killshell
    notebookedit exitplanmode enterplanmode sendmessage taskcreate tasklist taskupdate
    taskget taskoutput teamcreate askuserquestion skill slashcommand"""
_CODE_KEYWORDS = """td lr rl bt tb graph flowchart subgraph sequencediagram classdiagram
    statediagram erdiagram gantt pie participant actor note loop alt opt par rect
    activate deactivate autonumber end start select from where join inner outer on
    group by order having insert into values update set delete create table drop
    alter index primary key foreign references limit offset union distinct as and or
    not null is def class return import from if elif else while for in try except
    finally with lambda yield async await pass raise function const let var new this
    typeof instanceof switch case break continue default public private protected
    static void int float double bool boolean char string struct enum impl fn pub mut
    use mod trait match loop begin then fi do done esac echo assert"""

STOP_WORDS = frozenset(" ".join((_ENGLISH, _DUTCH, _GERMAN, _FRENCH, _SPANISH, _RUSSIAN)).split())
"""Function words of the languages the corpus holds: never a subject, and never the
first word of a name (a sentence-initial "Het", "Die" or "Les")."""
GENERIC = frozenset(_GENERIC.split())
"""Words that name a kind of thing, not a thing: a subject only with other words."""
CODE_KEYWORDS = frozenset(_CODE_KEYWORDS.split())
"""Syntax of code and diagram languages (SQL, Mermaid, Python, JavaScript, Rust, sh)."""
AGENT_TOOLS = frozenset(_AGENT_TOOLS.split())
"""The tools a coding agent calls by name (Claude Code's): its plumbing, named in every
session, not what the session is about."""
NEVER_ALONE = STOP_WORDS | GENERIC | CODE_KEYWORDS | AGENT_TOOLS
"""Words that are never a subject on their own, however they are written."""
