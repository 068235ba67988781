/**
 * Ground-truth texts for the generated OCR corpus: two everyday paragraphs per language (a
 * business letter and a short news item), so that neither language identification nor CER is
 * tuned to one text. Written for this corpus; Latin texts carry each language's diacritics.
 */
export const corpusLanguages = ["eng", "deu", "fra", "spa", "ita", "por", "nld", "chi_sim", "jpn", "ara"] as const;
export type CorpusLanguage = (typeof corpusLanguages)[number];

export const paragraphs: Record<CorpusLanguage, readonly [string, string]> = {
  eng: [
    "Dear customer, we are pleased to let you know that your order was shipped today. Delivery will take place within the next three working days. If you have any questions about the invoice or the size of the items, please contact our customer service. Thank you for your trust and have a nice day.",
    "The city council approved a new plan for public transport on Tuesday. From next spring, buses will run every ten minutes during the day, and the old railway station will be turned into a library with a small garden.",
  ],
  deu: [
    "Sehr geehrte Kundin, sehr geehrter Kunde, wir freuen uns, Ihnen mitteilen zu können, dass Ihre Bestellung heute versandt wurde. Die Lieferung erfolgt in den nächsten drei Werktagen. Bei Fragen zur Rechnung oder zur Größe der Artikel wenden Sie sich bitte an unseren Kundendienst. Vielen Dank für Ihr Vertrauen.",
    "Der Stadtrat hat am Dienstag einen neuen Plan für den öffentlichen Verkehr beschlossen. Ab dem nächsten Frühjahr fahren die Busse tagsüber alle zehn Minuten, und der alte Bahnhof wird zu einer Bücherei mit einem kleinen Garten umgebaut.",
  ],
  fra: [
    "Madame, Monsieur, nous avons le plaisir de vous informer que votre commande a été expédiée aujourd'hui. La livraison aura lieu dans les trois prochains jours ouvrables. Pour toute question concernant la facture ou la taille des articles, veuillez contacter notre service client. Nous vous remercions de votre confiance.",
    "Le conseil municipal a adopté mardi un nouveau plan pour les transports publics. Dès le printemps prochain, les bus passeront toutes les dix minutes pendant la journée, et l'ancienne gare deviendra une bibliothèque avec un petit jardin.",
  ],
  spa: [
    "Estimado cliente, nos complace informarle de que su pedido ha sido enviado hoy. La entrega se realizará en los próximos tres días hábiles. Si tiene alguna pregunta sobre la factura o el tamaño de los artículos, póngase en contacto con nuestro servicio de atención al cliente. Le agradecemos su confianza.",
    "El ayuntamiento aprobó el martes un nuevo plan para el transporte público. A partir de la próxima primavera, los autobuses pasarán cada diez minutos durante el día, y la antigua estación de tren se convertirá en una biblioteca con un pequeño jardín.",
  ],
  ita: [
    "Gentile cliente, siamo lieti di informarla che il suo ordine è stato spedito oggi. La consegna avverrà nei prossimi tre giorni lavorativi. Per qualsiasi domanda sulla fattura o sulla taglia degli articoli, la preghiamo di contattare il nostro servizio clienti. La ringraziamo per la fiducia che ci ha accordato.",
    "Il consiglio comunale ha approvato martedì un nuovo piano per il trasporto pubblico. Dalla prossima primavera gli autobus passeranno ogni dieci minuti durante il giorno, e la vecchia stazione ferroviaria diventerà una biblioteca con un piccolo giardino.",
  ],
  por: [
    "Prezado cliente, temos o prazer de informar que o seu pedido foi enviado hoje. A entrega será realizada nos próximos três dias úteis. Se tiver alguma dúvida sobre a fatura ou o tamanho dos artigos, entre em contato com o nosso serviço de atendimento. Agradecemos a sua confiança e desejamos um ótimo dia.",
    "A câmara municipal aprovou na terça-feira um novo plano para os transportes públicos. A partir da próxima primavera, os ônibus vão passar a cada dez minutos durante o dia, e a antiga estação ferroviária será transformada numa biblioteca com um pequeno jardim.",
  ],
  nld: [
    "Geachte klant, met genoegen laten wij u weten dat uw bestelling vandaag is verzonden. De levering vindt plaats binnen de komende drie werkdagen. Als u vragen hebt over de factuur of de maat van de artikelen, neem dan contact op met onze klantenservice. Wij danken u voor uw vertrouwen en wensen u een prettige dag.",
    "De gemeenteraad heeft dinsdag een nieuw plan voor het openbaar vervoer goedgekeurd. Vanaf het volgende voorjaar rijden de bussen overdag elke tien minuten, en het oude station wordt omgebouwd tot een bibliotheek met een kleine tuin.",
  ],
  chi_sim: [
    "尊敬的客户，我们很高兴地通知您，您的订单已于今天发货。货物将在接下来的三个工作日内送达。如果您对发票或商品尺寸有任何疑问，请联系我们的客户服务部门。感谢您的信任，祝您生活愉快。",
    "市议会星期二批准了一项新的公共交通计划。从明年春天开始，公共汽车白天每十分钟一班，老火车站将改建成一座带有小花园的图书馆。",
  ],
  jpn: [
    "お客様へ。ご注文の商品は本日発送いたしましたのでお知らせいたします。お届けは三営業日以内を予定しております。請求書や商品のサイズについてご質問がございましたら、カスタマーサービスまでお問い合わせください。",
    "市議会は火曜日に公共交通の新しい計画を承認しました。来年の春から、バスは昼間十分ごとに運行し、古い駅は小さな庭のある図書館に生まれ変わります。",
  ],
  ara: [
    "عزيزي العميل، يسعدنا أن نبلغك بأن طلبك قد تم شحنه اليوم. سيتم التسليم خلال ثلاثة أيام عمل. إذا كان لديك أي سؤال حول الفاتورة أو مقاس المنتجات، يرجى التواصل مع خدمة العملاء. نشكرك على ثقتك ونتمنى لك يوما سعيدا.",
    "وافق المجلس البلدي يوم الثلاثاء على خطة جديدة للنقل العام. ابتداء من الربيع القادم ستمر الحافلات كل عشر دقائق خلال النهار، وستتحول محطة القطار القديمة إلى مكتبة مع حديقة صغيرة.",
  ],
};

/** Receipt lines (item, price); the layout pads them into two aligned columns. */
export const receiptLines: Partial<Record<CorpusLanguage, ReadonlyArray<readonly [string, string]>>> = {
  eng: [
    ["CORNER MARKET", ""],
    ["Milk 1L", "1.29"],
    ["Whole grain bread", "2.49"],
    ["Apples 1kg", "3.10"],
    ["Coffee beans", "11.90"],
    ["Butter", "2.15"],
    ["TOTAL", "20.93"],
    ["CASH", "25.00"],
    ["CHANGE", "4.07"],
  ],
  deu: [
    ["BÄCKEREI MÜLLER", ""],
    ["Brötchen 6x", "2.40"],
    ["Käsekuchen", "3.80"],
    ["Milchkaffee groß", "3.20"],
    ["Apfelschorle", "2.10"],
    ["SUMME EUR", "11.50"],
    ["BAR", "20.00"],
    ["RÜCKGELD", "8.50"],
  ],
};

/** Table rows; the first is the header. */
export const tableRows: Partial<Record<CorpusLanguage, ReadonlyArray<ReadonlyArray<string>>>> = {
  eng: [
    ["Product", "Quantity", "Price"],
    ["Notebook", "12", "3.50"],
    ["Pencil box", "4", "7.25"],
    ["Stapler", "2", "9.99"],
    ["Paper A4", "30", "4.10"],
  ],
  fra: [
    ["Article", "Quantité", "Prix"],
    ["Cahier", "12", "3,50"],
    ["Crayons", "4", "7,25"],
    ["Agrafeuse", "2", "9,99"],
    ["Papier A4", "30", "4,10"],
  ],
};
