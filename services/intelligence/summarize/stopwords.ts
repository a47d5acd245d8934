import lists from 'stopwords-iso/stopwords-iso.json';

/**
 * Words that say nothing about what a meeting was about: English function words, the small talk of
 * spoken conversation ("yeah", "gonna", "stuff"), vague verbs and time words. Keywords, topics and
 * section titles are drawn from everything else.
 */
const LIST = `
a about above across actually after afterwards again against ago ah ahead all almost alone along already also
although always am among amongst an and another any anybody anyhow anyone anything anyway anyways anywhere are
aren't around as ask asked asking at away awesome back bad basically be became because become becomes been before
beforehand behind being below beside besides best better between beyond big bit both bring but by call called
came can can't cannot come comes coming could couldn't cool course day days definitely did didn't different do
does doesn't doing don't done down during each easy either else elsewhere end enough especially etc even ever
every everybody everyone everything everywhere exactly except fair far feel feels felt few fine first five for
four from front full further get gets getting give given gives go goes going gone gonna good got gotten great
guess guys had hadn't half happen happened happy hard has hasn't have haven't having he he'd he'll he's hear heard
hello help her here here's hers herself hey hi him himself his hm hmm honestly hope hopefully how however huh i
i'd i'll i'm i've idea if important in including indeed instead into is isn't it it'd it'll it's its itself
just keep kind know knows known last late later least less let let's lets like likely little long look looked
looking looks lot lots made make makes making many may maybe me mean means meanwhile might mine minute minutes
more moreover most mostly move much must my myself need needed needs never new next nice no nobody none nope nor
not nothing now nowhere of off oh ok okay on once one ones only onto or other others otherwise our ours ourselves
out over own part particular people perfect perhaps person place please plus point pretty probably put quick
quickly quite rather re real really right said same saw say saying says second see seem seemed seems seen sense
set several shall she she'd she'll she's should shouldn't show side simply since so some somebody somehow someone
something sometime sometimes somewhat somewhere soon sorry sort start started stuff such suppose supposed sure
take taken takes taking talk talked talking tell than thank thanks that that's the their theirs them themselves
then there there's therefore these they they'd they'll they're they've thing things think thinking this those
though thought three through throughout thus time times to today together told tomorrow too took totally toward
towards tried try trying turn two uh um umm under unless until up upon us use used using usually very via wait
want wanted wants was wasn't way ways we we'd we'll we're we've week weeks welcome well went were weren't what
what's whatever when whenever where whether which while who who's whoever whole whom whose why will wish with
within without won't wonder word words work worked working works would wouldn't wow yeah year years yep yes yesterday
yet you you'd you'll you're you've your yours yourself yourselves
short long small large simple high low old early earlier late whole clear main certain open top final rough
basic actual ready tight free extra bigger biggest smaller smallest higher lower easier harder nicer
completely absolutely certainly fully nearly literally basically obviously clearly maybe
add added adding close closed join joined joining break answer answered bring share shared sharing month months
send sent sending change changed changes check checked write wrote written finish finished finishing
monday tuesday wednesday thursday friday saturday sunday morning afternoon evening tonight
january february march april may june july august september october november december
zero three four five six seven eight nine ten hundred thousand
`;

export const STOPWORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter(Boolean));

const byLanguage = new Map<string, ReadonlySet<string>>();

/**
 * The stop words of a meeting in `language` (a code like de or pt-BR): for English or an unknown
 * language, STOPWORDS as it is; for another, that language's list from stopwords-iso (the most
 * complete, kept for 58 languages) together with STOPWORDS, since meetings in other languages keep
 * English fillers ("okay", "yeah") and English function words are no keywords in any of them. A
 * language stopwords-iso lacks gets STOPWORDS alone.
 */
export function stopwordsFor(language: string | null | undefined): ReadonlySet<string> {
  const code = language?.toLowerCase().split(/[-_]/)[0];
  if (!code || code === 'en') return STOPWORDS;
  let set = byLanguage.get(code);
  if (!set) {
    const own = (lists as Record<string, string[]>)[code] ?? [];
    set = new Set([...STOPWORDS, ...own.map((w) => w.toLowerCase())]);
    byLanguage.set(code, set);
  }
  return set;
}
