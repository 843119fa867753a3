// Real U.S. area codes with their state, standard-time UTC offset, LATA and a few of their cities,
// so enhanced LRN data follows the number's real geography. Kept as compact text (one line per
// NPA: npa|state|offset|lata|city:zip:county;...) because it is data, not code.

export interface Place {
  readonly city: string;
  readonly zip: string;
  readonly county: string;
}

export interface AreaCode {
  readonly npa: string;
  readonly state: string;
  /** Standard-time offset, +/-HHMM. */
  readonly timezone: string;
  readonly lata: string;
  readonly places: readonly Place[];
  readonly tollFree?: boolean;
}

const TABLE = `
201|NJ|-0500|224|Jersey City:07302:Hudson;Hackensack:07601:Bergen;Bayonne:07002:Hudson
202|DC|-0500|236|Washington:20001:District of Columbia;Washington:20011:District of Columbia
203|CT|-0500|920|New Haven:06510:New Haven;Bridgeport:06604:Fairfield;Stamford:06901:Fairfield
205|AL|-0600|476|Birmingham:35203:Jefferson;Tuscaloosa:35401:Tuscaloosa
206|WA|-0800|674|Seattle:98101:King;Seattle:98115:King
207|ME|-0500|120|Portland:04101:Cumberland;Bangor:04401:Penobscot
208|ID|-0700|652|Boise:83702:Ada;Idaho Falls:83402:Bonneville
210|TX|-0600|566|San Antonio:78205:Bexar;San Antonio:78229:Bexar
212|NY|-0500|132|New York:10001:New York;New York:10022:New York;New York:10027:New York
213|CA|-0800|730|Los Angeles:90012:Los Angeles;Los Angeles:90017:Los Angeles
214|TX|-0600|552|Dallas:75201:Dallas;Dallas:75204:Dallas
215|PA|-0500|228|Philadelphia:19103:Philadelphia;Philadelphia:19107:Philadelphia
216|OH|-0500|320|Cleveland:44113:Cuyahoga;Lakewood:44107:Cuyahoga
225|LA|-0600|492|Baton Rouge:70801:East Baton Rouge;Baton Rouge:70808:East Baton Rouge
248|MI|-0500|340|Troy:48083:Oakland;Pontiac:48342:Oakland
251|AL|-0600|480|Mobile:36602:Mobile;Daphne:36526:Baldwin
253|WA|-0800|674|Tacoma:98402:Pierce;Kent:98032:King
256|AL|-0600|477|Huntsville:35801:Madison;Decatur:35601:Morgan
260|IN|-0500|334|Fort Wayne:46802:Allen;Huntington:46750:Huntington
281|TX|-0600|560|Houston:77060:Harris;Sugar Land:77478:Fort Bend
301|MD|-0500|236|Bethesda:20814:Montgomery;Silver Spring:20910:Montgomery
302|DE|-0500|228|Wilmington:19801:New Castle;Dover:19901:Kent
303|CO|-0700|656|Denver:80202:Denver;Aurora:80012:Arapahoe
304|WV|-0500|250|Charleston:25301:Kanawha;Huntington:25701:Cabell
305|FL|-0500|460|Miami:33130:Miami-Dade;Miami Beach:33139:Miami-Dade;Hialeah:33010:Miami-Dade
307|WY|-0700|654|Cheyenne:82001:Laramie;Casper:82601:Natrona
310|CA|-0800|730|Santa Monica:90401:Los Angeles;Torrance:90501:Los Angeles
312|IL|-0600|358|Chicago:60601:Cook;Chicago:60606:Cook;Chicago:60611:Cook
313|MI|-0500|340|Detroit:48226:Wayne;Dearborn:48126:Wayne
314|MO|-0600|520|Saint Louis:63101:St. Louis City;Saint Louis:63110:St. Louis City
315|NY|-0500|136|Syracuse:13202:Onondaga;Utica:13501:Oneida
316|KS|-0600|532|Wichita:67202:Sedgwick;Wichita:67211:Sedgwick
317|IN|-0500|336|Indianapolis:46204:Marion;Carmel:46032:Hamilton
318|LA|-0600|486|Shreveport:71101:Caddo;Monroe:71201:Ouachita
319|IA|-0600|635|Cedar Rapids:52401:Linn;Iowa City:52240:Johnson
323|CA|-0800|730|Los Angeles:90028:Los Angeles;Los Angeles:90036:Los Angeles
330|OH|-0500|325|Akron:44308:Summit;Canton:44702:Stark
334|AL|-0600|478|Montgomery:36104:Montgomery;Auburn:36830:Lee
336|NC|-0500|424|Greensboro:27401:Guilford;Winston-Salem:27101:Forsyth
337|LA|-0600|488|Lafayette:70501:Lafayette;Lake Charles:70601:Calcasieu
346|TX|-0600|560|Houston:77002:Harris;Pasadena:77502:Harris
347|NY|-0500|132|Brooklyn:11201:Kings;Bronx:10451:Bronx
385|UT|-0700|660|Salt Lake City:84111:Salt Lake;Provo:84601:Utah
401|RI|-0500|130|Providence:02903:Providence;Warwick:02886:Kent
402|NE|-0600|644|Omaha:68102:Douglas;Lincoln:68508:Lancaster
404|GA|-0500|438|Atlanta:30303:Fulton;Atlanta:30308:Fulton
405|OK|-0600|536|Oklahoma City:73102:Oklahoma;Norman:73069:Cleveland
406|MT|-0700|648|Billings:59101:Yellowstone;Missoula:59802:Missoula
407|FL|-0500|458|Orlando:32801:Orange;Kissimmee:34741:Osceola
408|CA|-0800|722|San Jose:95113:Santa Clara;Sunnyvale:94086:Santa Clara
410|MD|-0500|238|Baltimore:21202:Baltimore City;Annapolis:21401:Anne Arundel
412|PA|-0500|234|Pittsburgh:15222:Allegheny;Pittsburgh:15213:Allegheny
414|WI|-0600|356|Milwaukee:53202:Milwaukee;West Allis:53214:Milwaukee
415|CA|-0800|722|San Francisco:94102:San Francisco;San Francisco:94105:San Francisco;San Rafael:94901:Marin
417|MO|-0600|522|Springfield:65806:Greene;Joplin:64801:Jasper
419|OH|-0500|326|Toledo:43604:Lucas;Lima:45801:Allen
423|TN|-0500|472|Chattanooga:37402:Hamilton;Johnson City:37601:Washington
425|WA|-0800|674|Bellevue:98004:King;Everett:98201:Snohomish
432|TX|-0600|542|Midland:79701:Midland;Odessa:79761:Ector
469|TX|-0600|552|Dallas:75202:Dallas;Plano:75074:Collin
470|GA|-0500|438|Atlanta:30305:Fulton;Marietta:30060:Cobb
478|GA|-0500|446|Macon:31201:Bibb;Warner Robins:31093:Houston
480|AZ|-0700|666|Scottsdale:85251:Maricopa;Mesa:85201:Maricopa;Tempe:85281:Maricopa
501|AR|-0600|528|Little Rock:72201:Pulaski;Conway:72032:Faulkner
502|KY|-0500|462|Louisville:40202:Jefferson;Frankfort:40601:Franklin
503|OR|-0800|672|Portland:97204:Multnomah;Salem:97301:Marion
504|LA|-0600|490|New Orleans:70112:Orleans;Metairie:70001:Jefferson
505|NM|-0700|664|Albuquerque:87102:Bernalillo;Santa Fe:87501:Santa Fe
512|TX|-0600|558|Austin:78701:Travis;Austin:78704:Travis;Round Rock:78664:Williamson
513|OH|-0500|922|Cincinnati:45202:Hamilton;Hamilton:45011:Butler
515|IA|-0600|632|Des Moines:50309:Polk;Ames:50010:Story
516|NY|-0500|132|Hempstead:11550:Nassau;Garden City:11530:Nassau
517|MI|-0500|346|Lansing:48933:Ingham;Jackson:49201:Jackson
518|NY|-0500|134|Albany:12207:Albany;Schenectady:12305:Schenectady
520|AZ|-0700|668|Tucson:85701:Pima;Sierra Vista:85635:Cochise
559|CA|-0800|728|Fresno:93721:Fresno;Visalia:93291:Tulare
561|FL|-0500|460|West Palm Beach:33401:Palm Beach;Boca Raton:33432:Palm Beach
562|CA|-0800|730|Long Beach:90802:Los Angeles;Whittier:90601:Los Angeles
570|PA|-0500|232|Scranton:18503:Lackawanna;Wilkes-Barre:18701:Luzerne
571|VA|-0500|236|Arlington:22201:Arlington;Alexandria:22314:Alexandria City
585|NY|-0500|136|Rochester:14604:Monroe;Brockport:14420:Monroe
601|MS|-0600|482|Jackson:39201:Hinds;Hattiesburg:39401:Forrest
602|AZ|-0700|666|Phoenix:85004:Maricopa;Phoenix:85016:Maricopa
603|NH|-0500|122|Manchester:03101:Hillsborough;Concord:03301:Merrimack
605|SD|-0600|640|Sioux Falls:57104:Minnehaha;Rapid City:57701:Pennington
612|MN|-0600|628|Minneapolis:55401:Hennepin;Minneapolis:55403:Hennepin
614|OH|-0500|324|Columbus:43215:Franklin;Dublin:43017:Franklin
615|TN|-0600|470|Nashville:37203:Davidson;Franklin:37064:Williamson
616|MI|-0500|348|Grand Rapids:49503:Kent;Holland:49423:Ottawa
617|MA|-0500|128|Boston:02108:Suffolk;Boston:02116:Suffolk;Cambridge:02139:Middlesex
619|CA|-0800|732|San Diego:92101:San Diego;Chula Vista:91910:San Diego
626|CA|-0800|730|Pasadena:91101:Los Angeles;Arcadia:91006:Los Angeles
630|IL|-0600|358|Naperville:60540:DuPage;Aurora:60505:Kane
631|NY|-0500|132|Huntington:11743:Suffolk;Islip:11751:Suffolk
646|NY|-0500|132|New York:10011:New York;New York:10019:New York
651|MN|-0600|628|Saint Paul:55101:Ramsey;Woodbury:55125:Washington
660|MO|-0600|524|Sedalia:65301:Pettis;Kirksville:63501:Adair
678|GA|-0500|438|Atlanta:30309:Fulton;Lawrenceville:30046:Gwinnett
702|NV|-0800|721|Las Vegas:89101:Clark;Las Vegas:89109:Clark;Henderson:89002:Clark
703|VA|-0500|236|Fairfax:22030:Fairfax;Reston:20190:Fairfax
704|NC|-0500|422|Charlotte:28202:Mecklenburg;Gastonia:28052:Gaston
706|GA|-0500|442|Augusta:30901:Richmond;Athens:30601:Clarke
707|CA|-0800|722|Santa Rosa:95404:Sonoma;Napa:94559:Napa
713|TX|-0600|560|Houston:77002:Harris;Houston:77006:Harris
714|CA|-0800|730|Anaheim:92805:Orange;Santa Ana:92701:Orange
716|NY|-0500|140|Buffalo:14202:Erie;Niagara Falls:14301:Niagara
717|PA|-0500|226|Harrisburg:17101:Dauphin;Lancaster:17602:Lancaster
718|NY|-0500|132|Brooklyn:11215:Kings;Queens:11375:Queens;Staten Island:10301:Richmond
720|CO|-0700|656|Denver:80205:Denver;Lakewood:80226:Jefferson
724|PA|-0500|234|Washington:15301:Washington;Greensburg:15601:Westmoreland
732|NJ|-0500|222|New Brunswick:08901:Middlesex;Toms River:08753:Ocean
734|MI|-0500|340|Ann Arbor:48104:Washtenaw;Livonia:48150:Wayne
737|TX|-0600|558|Austin:78702:Travis;Pflugerville:78660:Travis
754|FL|-0500|460|Fort Lauderdale:33301:Broward;Hollywood:33020:Broward
757|VA|-0500|252|Norfolk:23510:Norfolk City;Virginia Beach:23451:Virginia Beach City
763|MN|-0600|628|Plymouth:55441:Hennepin;Coon Rapids:55433:Anoka
770|GA|-0500|438|Marietta:30064:Cobb;Roswell:30075:Fulton
773|IL|-0600|358|Chicago:60614:Cook;Chicago:60647:Cook
775|NV|-0800|720|Reno:89501:Washoe;Carson City:89701:Carson City
781|MA|-0500|128|Waltham:02451:Middlesex;Quincy:02169:Norfolk
786|FL|-0500|460|Miami:33125:Miami-Dade;Doral:33172:Miami-Dade
801|UT|-0700|660|Salt Lake City:84101:Salt Lake;Ogden:84401:Weber
802|VT|-0500|124|Burlington:05401:Chittenden;Montpelier:05602:Washington
803|SC|-0500|434|Columbia:29201:Richland;Rock Hill:29730:York
804|VA|-0500|248|Richmond:23219:Richmond City;Petersburg:23803:Petersburg City
808|HI|-1000|834|Honolulu:96813:Honolulu;Hilo:96720:Hawaii
810|MI|-0500|344|Flint:48502:Genesee;Port Huron:48060:St. Clair
813|FL|-0500|952|Tampa:33602:Hillsborough;Brandon:33511:Hillsborough
816|MO|-0600|524|Kansas City:64105:Jackson;Independence:64050:Jackson
818|CA|-0800|730|Burbank:91502:Los Angeles;Glendale:91203:Los Angeles
832|TX|-0600|560|Houston:77003:Harris;Katy:77494:Fort Bend
843|SC|-0500|436|Charleston:29401:Charleston;Myrtle Beach:29577:Horry
847|IL|-0600|358|Evanston:60201:Cook;Schaumburg:60173:Cook
850|FL|-0600|448|Pensacola:32502:Escambia;Tallahassee:32301:Leon
857|MA|-0500|128|Boston:02110:Suffolk;Brookline:02445:Norfolk
858|CA|-0800|732|San Diego:92121:San Diego;La Jolla:92037:San Diego
860|CT|-0500|920|Hartford:06103:Hartford;New London:06320:New London
862|NJ|-0500|224|Newark:07102:Essex;Paterson:07505:Passaic
864|SC|-0500|430|Greenville:29601:Greenville;Spartanburg:29301:Spartanburg
865|TN|-0500|474|Knoxville:37902:Knox;Oak Ridge:37830:Anderson
901|TN|-0600|468|Memphis:38103:Shelby;Germantown:38138:Shelby
904|FL|-0500|452|Jacksonville:32202:Duval;Orange Park:32073:Clay
907|AK|-0900|832|Anchorage:99501:Anchorage;Fairbanks:99701:Fairbanks North Star
908|NJ|-0500|224|Elizabeth:07201:Union;Somerville:08876:Somerset
909|CA|-0800|730|San Bernardino:92401:San Bernardino;Pomona:91766:Los Angeles
910|NC|-0500|428|Wilmington:28401:New Hanover;Fayetteville:28301:Cumberland
913|KS|-0600|524|Overland Park:66210:Johnson;Kansas City:66101:Wyandotte
914|NY|-0500|132|White Plains:10601:Westchester;Yonkers:10701:Westchester
915|TX|-0700|540|El Paso:79901:El Paso;El Paso:79936:El Paso
916|CA|-0800|726|Sacramento:95814:Sacramento;Elk Grove:95624:Sacramento
917|NY|-0500|132|New York:10016:New York;New York:10036:New York
918|OK|-0600|538|Tulsa:74103:Tulsa;Broken Arrow:74012:Tulsa
919|NC|-0500|426|Raleigh:27601:Wake;Durham:27701:Durham
925|CA|-0800|722|Walnut Creek:94596:Contra Costa;Pleasanton:94566:Alameda
929|NY|-0500|132|Brooklyn:11211:Kings;Queens:11101:Queens
937|OH|-0500|328|Dayton:45402:Montgomery;Springfield:45502:Clark
949|CA|-0800|730|Irvine:92614:Orange;Newport Beach:92660:Orange;Laguna Beach:92651:Orange
952|MN|-0600|628|Bloomington:55420:Hennepin;Eden Prairie:55344:Hennepin
954|FL|-0500|460|Fort Lauderdale:33304:Broward;Pompano Beach:33060:Broward
970|CO|-0700|656|Fort Collins:80521:Larimer;Grand Junction:81501:Mesa
971|OR|-0800|672|Portland:97209:Multnomah;Beaverton:97005:Washington
972|TX|-0600|552|Irving:75038:Dallas;Garland:75040:Dallas
973|NJ|-0500|224|Newark:07103:Essex;Morristown:07960:Morris
978|MA|-0500|128|Lowell:01852:Middlesex;Salem:01970:Essex
980|NC|-0500|422|Charlotte:28203:Mecklenburg;Concord:28025:Cabarrus
`;

/** Toll-free codes have no geography; their records carry the responsible organisation's home. */
const TOLL_FREE = ['800', '833', '844', '855', '866', '877', '888'];
const TOLL_FREE_PLACE: Place = { city: 'Toll Free', zip: '', county: '' };

function parseTable(text: string): Map<string, AreaCode> {
  const out = new Map<string, AreaCode>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [npa = '', state = '', timezone = '', lata = '', places = ''] = line.split('|');
    out.set(npa, {
      npa,
      state,
      timezone,
      lata,
      places: places.split(';').map((p) => {
        const [city = '', zip = '', county = ''] = p.split(':');
        return { city, zip, county };
      }),
    });
  }
  for (const npa of TOLL_FREE) {
    out.set(npa, { npa, state: '', timezone: '-0500', lata: '', places: [TOLL_FREE_PLACE], tollFree: true });
  }
  return out;
}

export const AREA_CODES: ReadonlyMap<string, AreaCode> = parseTable(TABLE);

/** Geographic entries only, for numbers whose area code the table does not know. */
export const GEOGRAPHIC: readonly AreaCode[] = [...AREA_CODES.values()].filter((a) => !a.tollFree);
