'use strict';
// The 256 words of a code's secret part (Sources/PAKE/CodeSecret.swift), index = byte value.
// Never reorder: a test checks this list equals chatcli's.
self.CODE_WORDS = Object.freeze([
  'able','active','actual','adult','agile','airy','alert','alive','alone','amazed','ample','annual','apt','arid','awake','aware',
  'azure','bare','basic','best','big','black','bland','blank','blond','blue','blunt','bold','bony','brave','brief','bright',
  'brisk','broad','brown','bumpy','busy','calm','candid','casual','cheery','chief','chilly','civil','clean','clear','clever','cold',
  'cool','cosy','cozy','crisp','curly','curvy','cute','daily','damp','dapper','dark','decent','deep','dense','dim','direct',
  'double','dry','dual','dusty','eager','early','east','easy','eerie','elastic','elder','empty','epic','equal','even','exact',
  'exotic','extra','faint','famous','fancy','far','fast','fiery','fine','firm','fit','flat','fluffy','fond','frank','free',
  'fresh','frosty','full','funny','fuzzy','gentle','giant','gifted','glad','glossy','golden','good','grand','gray','green','happy',
  'hard','hearty','heavy','high','hollow','hot','huge','humble','humid','hungry','icy','ideal','inner','jolly','juicy','jumbo',
  'keen','kind','kindly','large','late','lavish','lazy','lean','level','light','little','lively','local','long','loose','loud',
  'lovely','low','loyal','lucky','lunar','major','marine','mature','mellow','merry','mighty','mild','minor','misty','modern','moist',
  'narrow','native','near','neat','nice','noble','noisy','normal','novel','oily','old','open','outer','oval','pale','polite',
  'prime','proud','pure','quick','quiet','rapid','rare','raw','ready','rich','rigid','ripe','rosy','rough','round','royal',
  'rural','rusty','safe','salty','sandy','sharp','shiny','short','shy','silent','simple','slim','slow','small','smart','smooth',
  'snowy','soft','solar','solid','spare','spicy','steep','stiff','still','stormy','strict','strong','sunny','super','sweet','swift',
  'tall','tame','tart','thick','thin','tidy','tiny','total','tough','true','twin','upper','urban','usual','vague','valid',
  'vast','vivid','warm','wary','west','wet','white','wide','wild','windy','wise','witty','woody','young','zany','zesty',
]);
