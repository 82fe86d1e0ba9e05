"""Typed models of the lead verification service (seed 000): the request and the ELSGenericMessage response.

Python names are the seed's names in snake case; each struct maps them to the exact wire names, so
`msgspec.json.encode(message)` *is* the service's JSON. The request is flat in Python (as on the form) and
grouped on the JSON and XML wires; `dqkit.contract.lead_wire` does that mapping in both directions.
"""

from __future__ import annotations

import operator
from typing import Any, Final

import msgspec

# Section 2.1: maximum length of each request field that has one (None: the seed gives no maximum).
FIELD_MAX_LENGTH: Final[dict[str, int | None]] = {
    "FULL_NAME": 50,
    "FIRST_NAME": 30,
    "LAST_NAME": 30,
    "ZIP": 5,
    "BUSINESS_NAME": 50,
    "ADDRESS_TYPE": 1,
    "PARTNER_ID": None,
    "CUST_REF_NO": None,
    "CLIENT_ID": None,
    "PREFIX": 10,
    "MIDDLE_NAME": 20,
    "SUFFIX": 5,
    "PHONE_TYPE": 1,
    "PHONE_NUMBER": 12,
    "PHONE_EXTENSION": None,
    "PHONE_COUNTRY_CODE": None,
    "STREET1": 35,
    "STREET2": 35,
    "CITY": 28,
    "STATE": 2,
    "ZIPPLUS": None,
    "COUNTY": None,
    "COUNTRY": None,
    "ATTRIBUTE_NAME": None,
    "ATTRIBUTE_VALUE": None,
}
MAX_ATTRIBUTES: Final = 10
MAX_STAGE1_PHONES: Final = 2
# The JSON and XML wires carry ADDRESS_TYPE / PHONE_TYPE as words; the length limit of 1 applies to the code.
TYPE_WORDS: Final[dict[str, str]] = {"HOME": "H", "BUSINESS": "B", "H": "H", "B": "B"}

NAME_FIELDS: Final = ("PREFIX", "FIRST_NAME", "MIDDLE_NAME", "LAST_NAME", "SUFFIX", "FULL_NAME", "BUSINESS_NAME")
ADDRESS_FIELDS: Final = ("ADDRESS_TYPE", "STREET1", "STREET2", "CITY", "STATE", "ZIP", "ZIPPLUS", "COUNTY",
                         "COUNTRY")
PHONE_FIELDS: Final = ("PHONE_TYPE", "PHONE_NUMBER", "PHONE_EXTENSION", "PHONE_COUNTRY_CODE")
CUSTOMER_FIELDS: Final = ("PARTNER_ID", "CLIENT_ID", "CUST_REF_NO")
# Fields apostrophes are removed from before anything else (section 2.1, rule 1).
APOSTROPHE_FIELDS: Final = ("full_name", "first_name", "last_name", "middle_name")


# gc=False: these structs never take part in reference cycles (they hold strings, tuples and other such
# structs), so the garbage collector need not track the millions a batch creates (~10% of a batch's time).
class _Wire(msgspec.Struct, rename="upper", omit_defaults=True, kw_only=True, gc=False):
    """Base of structs whose wire names are their field names in upper case."""


class _FrozenWire(msgspec.Struct, rename="upper", omit_defaults=True, kw_only=True, frozen=True, gc=False):
    """The same, immutable (requests and parts of answers that are never edited)."""


class Phone(_FrozenWire, frozen=True):
    """One LEAD_PHONE entry. `phone_type` is the one-letter code (H or B)."""

    phone_type: str = ""
    phone_number: str = ""
    phone_extension: str = ""
    phone_country_code: str = ""


class Attribute(msgspec.Struct, frozen=True, gc=False, rename={"name": "ATTRIBUTE_NAME", "value": "ATTRIBUTE_VALUE"}):
    """One LEAD_ATTRIBUTE pair."""

    name: str
    value: str = ""


class LeadRequest(_FrozenWire, frozen=True):
    """One lead, as the service receives it (section 2.1). Flat, like the form representation.

    `address_type` and each phone's `phone_type` hold the one-letter code; the JSON and XML codecs turn the
    words Home / Business into it and back.
    """

    prefix: str = ""
    first_name: str = ""
    middle_name: str = ""
    last_name: str = ""
    suffix: str = ""
    full_name: str = ""
    business_name: str = ""
    address_type: str = ""
    street1: str = ""
    street2: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    zipplus: str = ""
    county: str = ""
    country: str = ""
    phones: tuple[Phone, ...] = msgspec.field(default=(), name="LEAD_PHONE")
    partner_id: str = ""
    client_id: str = ""
    cust_ref_no: str = ""
    attributes: tuple[Attribute, ...] = msgspec.field(default=(), name="LEAD_ATTRIBUTE")

    @property
    def phone_number(self) -> str:
        """The first phone's number, or ""."""
        return self.phones[0].phone_number if self.phones else ""


# The LeadRequest attributes that hold one text value (every one but phones and attributes), in field order, and
# all their values of a lead at once (`TEXT_VALUES(lead)`, a tuple): the paths that read every field use these.
TEXT_FIELDS: Final = tuple(f for f in LeadRequest.__struct_fields__ if f not in ("phones", "attributes"))
TEXT_VALUES: Final = operator.attrgetter(*TEXT_FIELDS)


class Message(_FrozenWire, frozen=True):
    """Outcome of the transaction (section 2.2)."""

    type: str
    result_code: str
    value: str = ""
    category: str = ""


class StandardizedAddress(_Wire):
    """Section 2.3. Empty string means "not assigned"; fields no source holds (ZIP+4, carrier route, DPV,
    LACS, census block) stay empty rather than invented."""

    full_address: str = ""
    street1: str = ""
    street2: str = ""
    prim_range: str = ""
    sec_range: str = ""
    prim_name: str = ""
    predir: str = ""
    suffix: str = ""
    postdir: str = ""
    unit_desig: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    zipplus: str = ""
    po_box_num: str = ""
    rr_box_num: str = ""
    rr_num: str = ""
    carrier_route: str = ""
    geo_msa: str = ""
    geo_lng: str = ""
    geo_lat: str = ""
    geo_blk: str = ""
    dpbc: str = ""
    checkdigit: str = ""
    address_type: str = ""
    county: str = ""
    county_code: str = ""
    country: str = ""
    fipscode: str = ""
    address_error_status: str = ""
    address_code: str = ""
    firmline: str = ""
    geomatch: str = ""
    matchzipfive: str = ""
    matchzipnine: str = ""
    ziptype: str = ""
    suitablefordelivery: str = ""
    lacscode: str = ""


class NameParser(_FrozenWire, frozen=True):
    """Stage 1 name parsing (NameParser.* attributes of section 2.4)."""

    prefix_cd: str = ""
    first_name: str = ""
    middle_name: str = ""
    last_name: str = ""
    suffix_cd: str = ""
    business_name_ind: str = ""  # the engine always sets Y or N, so it reaches the wire (omit_defaults)
    business_name: str = ""
    business_title: str = ""


class AppendAddress(_FrozenWire, frozen=True):
    """The address elements of a reverse phone append."""

    street1: str = ""
    street2: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    zipplus: str = ""


class ReversePhoneAppend(_FrozenWire, frozen=True):
    execution_status_flag: str = ""
    first_name: str = ""
    last_name: str = ""
    address: AppendAddress | None = None


class Stage1Data(
    msgspec.Struct,
    gc=False,
    omit_defaults=True,
    kw_only=True,
    rename={
        "name_parser": "NameParser",
        "phone_number": "PHONE_NUMBER",
        "score_result": "SCORE_RESULT",
        "score_desc": "SCORE_DESC",
        "phone_status": "PHONE_STATUS",
        "phone_desc": "PHONE_DESC",
        "reverse_phone_append": "REVERSE_PHONE_APPEND",
        "residential_address_verification_result": "ELSResidentialAddressVerificationResult",
        "residential_address_high_risk": "ELSResidentialAddressHighRisk",
        "residential_phone_verification_result": "ELSResidentialPhoneVerificationResult",
        "residential_phone_high_risk": "ELSResidentialPhoneHighRisk",
        "residential_phone_append": "ELSResidentialPhoneAppend",
        "business_phone_append": "ELSBusinessPhoneAppend",
    },
):
    """Section 2.4: holds either SCORE_RESULT/SCORE_DESC or PHONE_STATUS/PHONE_DESC, never both."""

    name_parser: NameParser | None = None
    phone_number: list[str] = []
    score_result: str = ""
    score_desc: str = ""
    phone_status: str = ""
    phone_desc: str = ""
    reverse_phone_append: ReversePhoneAppend | None = None
    residential_address_verification_result: str = ""
    residential_address_high_risk: str = ""
    residential_phone_verification_result: str = ""
    residential_phone_high_risk: str = ""
    residential_phone_append: str = ""
    business_phone_append: str = ""


# ---- Stage 2 (section 2.5). Only the attributes the seed names are typed; unknown ones are ignored on decode.


class _Pascal(msgspec.Struct, omit_defaults=True, kw_only=True, rename="pascal"):
    """Base of the business-data structs, whose wire names are PascalCase."""


class Coded(msgspec.Struct, omit_defaults=True, kw_only=True):
    """An indicator object: a code with optional content."""

    code: str = ""
    content: str = ""


class Livu(_Wire):
    mosaic_type: str = ""
    liv_lu_inc_model_v4_2_amt: str = ""
    liv_combined_homeownership: str = ""
    probable_homeowner: str = ""


class ZipData(_Wire):
    zip_avg_vehicles_hh: str = ""
    zipmesscore: str = ""


class Person(_Wire):
    permaritalstatus: str = ""
    percombinedage: str = ""
    pergender: str = ""
    occupation_model: str = ""


class BusinessFacts(_Pascal):
    file_established_date: str = ""
    employee_size_indicator: Coded | None = None
    business_type_indicator: Coded | None = None
    non_profit_indicator: Coded | None = None
    years_in_business: str = ""
    public_indicator: Coded | None = None
    sales_revenue: str = ""
    employee_size: str = ""
    sales_indicator: Coded | None = None
    years_in_business_indicator: Coded | None = None


class Demographic(msgspec.Struct, omit_defaults=True, kw_only=True,
                  rename={"business_facts": "BusinessFacts", "sic_codes": "SICCodes", "naics_codes": "NAICSCodes"}):
    business_facts: BusinessFacts | None = None
    sic_codes: list[Coded] = []
    naics_codes: list[Coded] = []


class CorporateLinkage(_Pascal):
    linkage_company_address: str = ""
    linkage_record_bin: str = msgspec.field(default="", name="LinkageRecordBIN")
    linkage_record_type: Coded | None = None
    linkage_company_state: str = ""
    linkage_company_city: str = ""
    linkage_country_code: str = ""
    linkage_company_name: str = ""


class CorporateLinkageSummary(_Pascal):
    corporate_linkage: list[CorporateLinkage] = []


class BusinessSummary(_Pascal):
    zip: str = ""
    zip_extension: str = ""
    street_address: str = ""
    business_name: str = ""
    state: str = ""
    city: str = ""
    website_url: str = msgspec.field(default="", name="WebsiteURL")
    phone_number: str = ""
    experian_bin: str = msgspec.field(default="", name="ExperianBIN")
    doing_business_as: list[str] = []


class ModelInformation(_Pascal):
    model_code: str = ""
    model_title: str = ""
    custom_model_code: str = ""


class IntelliScore(_Pascal):
    score_info_score: str = msgspec.field(default="", name="ScoreInfo.Score")
    action: str = ""
    percentile_ranking: str = ""
    model_information: ModelInformation | None = None
    publicly_held_company: Coded | None = None
    profile_number: str = ""


class IntelliScoreSummary(_Pascal):
    intelli_score: list[IntelliScore] = []


class PublicRecord(_Pascal):
    bankruptcy_filing_count: str = ""
    ucc_derog_count: str = msgspec.field(default="", name="UCCDerogCount")
    oldest_tax_lien_date: str = ""
    collection_count: str = ""
    tax_id: str = msgspec.field(default="", name="TaxID")
    judgment_filing_count: str = ""
    trade_collection_count: str = ""
    tax_lien_filing_count: str = ""
    most_recent_tax_lien_date: str = ""
    legal_balance: str = ""
    collection_count_past24_months: str = msgspec.field(default="", name="CollectionCountPast24Months")
    collection_balance: str = ""
    oldest_ucc_filing_date: str = msgspec.field(default="", name="OldestUCCFilingDate")
    most_recent_ucc_filing_date: str = msgspec.field(default="", name="MostRecentUCCFilingDate")
    ucc_filings: str = msgspec.field(default="", name="UCCFilings")
    tax_lien_flag: str = ""
    judgment_flag: str = ""


class BusinessData(_Pascal):
    demographic: Demographic | None = None
    corporate_linkage_summary: CorporateLinkageSummary | None = None
    summary: BusinessSummary | None = None
    intelli_score_summary: IntelliScoreSummary | None = None
    public_record: PublicRecord | None = None


class Stage2Data(msgspec.Struct, omit_defaults=True, kw_only=True,
                 rename={"data_type": "Data_Type", "match_type": "Match_Type", "livu": "Livu", "zip": "Zip",
                         "person": "Person", "geo": "Geo", "business_data": "BusinessData"}):
    """Consumer shape (Data_Type, Match_Type, Livu, Zip, Person, Geo) or business shape (BusinessData)."""

    data_type: str = ""
    match_type: str = ""
    livu: Livu | None = None
    zip: ZipData | None = None
    person: Person | None = None
    geo: dict[str, str] | None = None
    business_data: BusinessData | None = None


class ELSGenericMessage(
    msgspec.Struct,
    gc=False,
    omit_defaults=True,
    kw_only=True,
    rename={
        "transaction_id": "TRANSACTION_ID",
        "input_data": "InputData",
        "message": "Message",
        "standardized_address": "StandardizedAddress",
        "stage1_data": "Stage1Data",
        "stage2_data": "Stage2Data",
        "unparsed": "dqkitUnparsed",
    },
):
    """The whole response (section 2.2). Groups that a configuration does not return are None.

    `unparsed` is dqkit's, not the vendor's: members of a vendor answer that could not be placed, kept raw by
    dotted path (see `dqkit.contract.lead_decode`) so that nothing the vendor sent is lost. None otherwise."""

    transaction_id: str | int  # "String or number" on the vendor wire
    message: Message
    input_data: LeadRequest | None = None
    standardized_address: StandardizedAddress | None = None
    stage1_data: Stage1Data | None = None
    stage2_data: Stage2Data | None = None
    unparsed: dict[str, Any] | None = None

    @property
    def result_code(self) -> str:
        return self.message.result_code

    @property
    def ok(self) -> bool:
        """True for a STATUS message (S100, S101, S102)."""
        return self.message.type == "STATUS"
